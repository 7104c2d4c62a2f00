#include "timer/internal/python_snippet.h"

#include <Python.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/text.h"
#include "third_party/libtorch/libtorch_install.h"

namespace icount::timer::internal {
namespace {

// Holds the GIL for its scope; the interpreter is released between calls so
// any thread may use a PythonSnippet (one at a time).
class GilScope {
 public:
  GilScope() : state_(PyGILState_Ensure()) {}
  ~GilScope() { PyGILState_Release(state_); }

 private:
  PyGILState_STATE state_;
};

struct PyDecRef {
  void operator()(PyObject* object) const { Py_XDECREF(object); }
};
using PyRef = std::unique_ptr<PyObject, PyDecRef>;

// The active block control of the Run() on this thread; the three Python
// callables forward to it.
thread_local const IcountBlockControl* active_control = nullptr;

PyObject* NextBlock(PyObject*, PyObject*) {
  return PyLong_FromLongLong(active_control->next_block(active_control->context));
}
PyObject* BeginBlock(PyObject*, PyObject*) {
  active_control->begin_block(active_control->context);
  Py_RETURN_NONE;
}
PyObject* EndBlock(PyObject*, PyObject*) {
  active_control->end_block(active_control->context);
  Py_RETURN_NONE;
}

PyMethodDef kControlMethods[] = {
    {"next_block", NextBlock, METH_NOARGS, nullptr},
    {"begin_block", BeginBlock, METH_NOARGS, nullptr},
    {"end_block", EndBlock, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

// Formats the pending Python exception with its traceback and clears it.
std::string FetchPythonError() {
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  std::string message = "unknown Python error";
  PyObject* module = PyImport_ImportModule("traceback");
  if (module != nullptr && type != nullptr) {
    PyObject* lines = PyObject_CallMethod(module, "format_exception", "OOO", type,
                                          value ? value : Py_None, traceback ? traceback : Py_None);
    PyObject* empty = PyUnicode_FromString("");
    PyObject* joined = lines && empty ? PyUnicode_Join(empty, lines) : nullptr;
    if (joined != nullptr) {
      const char* utf8 = PyUnicode_AsUTF8(joined);
      if (utf8 != nullptr) message = utf8;
    }
    Py_XDECREF(joined);
    Py_XDECREF(empty);
    Py_XDECREF(lines);
  }
  Py_XDECREF(module);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  PyErr_Clear();
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return message;
}

// The generated source is registered with linecache so that tracebacks show
// the failing line of the user's statement, not just a line number.
constexpr char kSnippetFileName[] = "<icount-snippet>";

std::string IndentBody(const std::string& code, const std::string& prefix) {
  std::string body = base::Indent(code, prefix);
  return body.empty() ? prefix + "pass" : body;
}

// Python copies the whole environment into os.environ as it starts, so
// the heap of every Python case followed the lengths of variables nothing
// measured reads: an exported variable (40 bytes or 1000) moved add's
// Python case by 6 instructions a run (memcmp's path depends on where
// tensors' shapes land), as did a longer ICOUNT_CACHE_DIR, TMPDIR or a
// virtual environment's path. So Python starts with the variables it reads
// while starting (PYTHON*, locale, PATH, HOME), and os.environ then reads
// the process's environment on each use (kLiveEnviron): what measured code
// reads still counts, nothing else does.
bool ReadByPythonAtStart(const char* entry) {
  for (const char* prefix : {"PYTHON", "LC_", "LANG=", "PATH=", "HOME="}) {
    if (std::strncmp(entry, prefix, std::strlen(prefix)) == 0) return true;
  }
  return false;
}

extern "C" char** environ;

PyStatus InitializeWithStartEnvironment(const PyConfig& config) {
  std::vector<char*> start;
  std::vector<char*> whole_entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    whole_entries.push_back(*entry);
    if (ReadByPythonAtStart(*entry)) start.push_back(*entry);
  }
  start.push_back(nullptr);
  char** const whole = environ;
  environ = start.data();
  PyStatus status = Py_InitializeFromConfig(&config);
  // Whatever Python set while starting (setenv made it a new array) goes
  // into the whole environment.
  const absl::flat_hash_set<char*> before(start.begin(), start.end() - 1);
  std::vector<char*> added;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (!before.contains(*entry)) added.push_back(*entry);
  }
  // The whole array again, as it was: a setenv while Python started (a
  // sitecustomize that imports numpy) may have written the start
  // environment into it, where the worker's setenv keeps its one array
  // (worker/internal/heap_free_environment.cc).
  environ = whole;
  if (whole != nullptr) {
    std::copy(whole_entries.begin(), whole_entries.end(), whole);
    whole[whole_entries.size()] = nullptr;
  }
  for (char* entry : added) putenv(entry);
  return status;
}

// os.environ's data, read from the C environment on each use: a write
// through os.environ has already called putenv/unsetenv, which is all the
// data has to keep.
constexpr char kLiveEnviron[] = R"(
def _icount_live_environ():
    import ctypes, os
    libc = ctypes.CDLL(None)
    getenv = libc.getenv
    getenv.restype = ctypes.c_char_p
    getenv.argtypes = [ctypes.c_char_p]
    entries = ctypes.POINTER(ctypes.c_char_p).in_dll(libc, "environ")

    class LiveEnviron:
        def __getitem__(self, key):
            value = getenv(key)
            if value is None:
                raise KeyError(key)
            return value

        def __setitem__(self, key, value):
            pass

        def __delitem__(self, key):
            pass

        def __contains__(self, key):
            return getenv(key) is not None

        def __iter__(self):
            i = 0
            while entries[i] is not None:
                key, equals, _ = entries[i].partition(b"=")
                if equals:
                    yield key
                i += 1

        def __len__(self):
            return sum(1 for _ in self)

        def items(self):
            return [(key, self[key]) for key in self]

        def copy(self):
            return dict(self.items())

    os.environ._data = LiveEnviron()
    os.environb._data = os.environ._data


_icount_live_environ()
del _icount_live_environ
)";

absl::Status InitializeOnce() {
  if (!Py_IsInitialized()) {
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;  // leave SIGINT to the host program
    config.parse_argv = 0;
    PyStatus status = PyStatus_Ok();
    if (*libtorch_install::kTorchPythonPath == '\0') {
      // Debian's torch, with Debian's Python. Left to itself, Python takes
      // its prefix from the first python3 on PATH: a virtual environment's
      // without torch (a side measuring Debian's PyTorch) hid Debian's
      // dist-packages, and torch did not import.
      status = PyConfig_SetBytesString(&config, &config.program_name, "/usr/bin/python3");
    }
    if (!PyStatus_Exception(status)) status = InitializeWithStartEnvironment(config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
      return absl::InternalError(absl::StrCat("cannot start the embedded Python 3.11: ",
                                              status.err_msg ? status.err_msg : "?"));
    }
    PyEval_SaveThread();  // release the GIL; every use takes it with GilScope
  }
  GilScope gil;
  if (PyRun_SimpleString(kLiveEnviron) != 0) {
    return absl::InternalError(
        "cannot give the embedded Python's os.environ the process's environment (ctypes)");
  }
  if (!libtorch_install::kTorchPythonAvailable) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Python cases cannot run in this worker: it is built for the LibTorch in ",
        libtorch_install::kLibraryDirectory,
        ", which has no torch Python package beside it (importing another torch would load a "
        "second LibTorch); run C++ cases only (--no_python)"));
  }
  if (const std::string prelude = TorchImportPrelude();
      !prelude.empty() && PyRun_SimpleString(prelude.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot put ", libtorch_install::kTorchPythonPath,
                                            " on the embedded Python's sys.path"));
  }
  PyObject* torch = PyImport_ImportModule("torch");
  if (torch == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("the embedded Python cannot import torch (",
                     *libtorch_install::kTorchPythonPath == '\0'
                         ? std::string("install Debian's python3-torch; ./bazelw does")
                         : absl::StrCat("from ", libtorch_install::kTorchPythonPath),
                     "):\n", FetchPythonError()));
  }
  Py_DECREF(torch);
  return absl::OkStatus();
}

// An error where `setup` or `stmt` alone does not compile. Needs the GIL.
absl::Status CheckSetupAndStmtCompile(const std::string& stmt, const std::string& setup) {
  for (const auto& [part, code] :
       {std::pair<const char*, const std::string&>{"setup", setup}, {"stmt", stmt}}) {
    PyObject* compiled = Py_CompileString(code.c_str(), part, Py_file_input);
    if (compiled == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("Python ", part, " does not compile:\n", FetchPythonError()));
    }
    Py_DECREF(compiled);
  }
  return absl::OkStatus();
}

// The Python source of `inner`, the function a PythonSnippet runs: `setup`,
// then, per block the control asks for, `stmt` the block's number of times;
// and where the user's lines are in it.
struct InnerFunction {
  std::string source;
  int setup_first_line = 0;  // setup's line 1
  int setup_last_line = 0;
  int stmt_first_line = 0;  // stmt's line 1
  int stmt_last_line = 0;
};

InnerFunction InnerFunctionSource(const std::string& stmt, const std::string& setup) {
  const std::string head = "def inner(_icount_next, _icount_begin, _icount_end):\n";
  const std::string setup_body = IndentBody(setup, "    ") + "\n";
  const std::string loop =
      "    while True:\n"
      "        _icount_number = _icount_next()\n"
      "        if _icount_number < 0:\n"
      "            break\n"
      "        _icount_begin()\n"
      "        for _icount_i in _icount_repeat(None, _icount_number):\n";
  const std::string stmt_body = IndentBody(stmt, "            ") + "\n";
  auto lines = [](const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  };
  InnerFunction inner;
  inner.source = absl::StrCat(head, setup_body, loop, stmt_body, "        _icount_end()\n");
  inner.setup_first_line = lines(head) + 1;
  inner.setup_last_line = lines(head) + lines(setup_body);
  inner.stmt_first_line = inner.setup_last_line + lines(loop) + 1;
  inner.stmt_last_line = inner.stmt_first_line + lines(stmt_body) - 1;
  return inner;
}

}  // namespace

absl::Status EnsurePythonInitialized() {
  static std::once_flag once;
  static absl::Status* status = nullptr;
  std::call_once(once, [] { status = new absl::Status(InitializeOnce()); });
  return *status;
}

absl::StatusOr<std::shared_ptr<PythonSnippet>> PythonSnippet::Compile(const std::string& stmt,
                                                                      const std::string& setup) {
  if (absl::Status status = EnsurePythonInitialized(); !status.ok()) return status;
  GilScope gil;
  // Check stmt and setup on their own first, so a syntax error reports the
  // user's line numbers rather than the generated function's.
  if (absl::Status status = CheckSetupAndStmtCompile(stmt, setup); !status.ok()) return status;
  const InnerFunction generated = InnerFunctionSource(stmt, setup);
  const std::string& source = generated.source;
  // Each snippet gets its own file name so their linecache entries coexist.
  static int counter = 0;
  const std::string name = absl::StrCat(kSnippetFileName, "#", ++counter);

  PyRef torch(PyImport_ImportModule("torch"));
  PyRef itertools(PyImport_ImportModule("itertools"));
  PyRef linecache(PyImport_ImportModule("linecache"));
  if (!torch || !itertools || !linecache) return absl::InternalError(FetchPythonError());
  PyRef repeat(PyObject_GetAttrString(itertools.get(), "repeat"));
  PyRef cache(PyObject_GetAttrString(linecache.get(), "cache"));
  PyRef lines(PyUnicode_FromString(source.c_str()));
  if (lines) lines.reset(PyObject_CallMethod(lines.get(), "splitlines", "O", Py_True));
  // linecache.cache[name] = (size, None, lines, name)
  PyRef entry(lines ? Py_BuildValue("(nOOs)", static_cast<Py_ssize_t>(source.size()), Py_None,
                                    lines.get(), name.c_str())
                    : nullptr);
  if (!repeat || !cache || !entry || PyDict_SetItemString(cache.get(), name.c_str(), entry.get())) {
    return absl::InternalError(FetchPythonError());
  }

  PyRef globals(PyDict_New());
  PyDict_SetItemString(globals.get(), "__builtins__", PyEval_GetBuiltins());
  PyDict_SetItemString(globals.get(), "torch", torch.get());
  PyDict_SetItemString(globals.get(), "_icount_repeat", repeat.get());
  PyRef code(Py_CompileString(source.c_str(), name.c_str(), Py_file_input));
  PyRef defined(code ? PyEval_EvalCode(code.get(), globals.get(), globals.get()) : nullptr);
  PyObject* inner = defined ? PyDict_GetItemString(globals.get(), "inner") : nullptr;  // borrowed
  if (inner == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("Python snippet does not compile:\n", FetchPythonError()));
  }
  Py_INCREF(inner);
  std::shared_ptr<PythonSnippet> snippet(new PythonSnippet());
  snippet->function_ = inner;
  // A traceback's lines of the generated function, as the user's own.
  for (int line = generated.setup_first_line; line <= generated.setup_last_line; ++line) {
    snippet->user_lines_.emplace_back(
        absl::StrCat("File \"", name, "\", line ", line, ", in inner"),
        absl::StrCat("File \"setup\", line ", line - generated.setup_first_line + 1));
  }
  for (int line = generated.stmt_first_line; line <= generated.stmt_last_line; ++line) {
    snippet->user_lines_.emplace_back(
        absl::StrCat("File \"", name, "\", line ", line, ", in inner"),
        absl::StrCat("File \"stmt\", line ", line - generated.stmt_first_line + 1));
  }
  return snippet;
}

absl::Status PythonSnippet::Run(const IcountBlockControl& control) const {
  GilScope gil;
  const IcountBlockControl* previous = active_control;
  active_control = &control;
  PyObject* next = PyCFunction_New(&kControlMethods[0], nullptr);
  PyObject* begin = PyCFunction_New(&kControlMethods[1], nullptr);
  PyObject* end = PyCFunction_New(&kControlMethods[2], nullptr);
  PyObject* result =
      PyObject_CallFunctionObjArgs(static_cast<PyObject*>(function_), next, begin, end, nullptr);
  Py_DECREF(next);
  Py_DECREF(begin);
  Py_DECREF(end);
  active_control = previous;
  if (result == nullptr) {
    // Tracebacks name the user's setup and stmt lines, as compile errors do.
    std::string traceback = FetchPythonError();
    for (const auto& [generated, user] : user_lines_) {
      traceback = absl::StrReplaceAll(traceback, {{absl::StrCat(generated, "\n"),
                                                   absl::StrCat(user, "\n")}});
    }
    return absl::AbortedError(absl::StrCat("Python snippet raised:\n", traceback));
  }
  Py_DECREF(result);
  return absl::OkStatus();
}

PythonSnippet::~PythonSnippet() {
  if (function_ != nullptr && Py_IsInitialized()) {
    GilScope gil;
    Py_DECREF(static_cast<PyObject*>(function_));
  }
}

}  // namespace icount::timer::internal
