// Proves embedded CPython 3.11 links from Debian's libpython3.11 and imports
// Debian's python3-torch.
#include <Python.h>

#include <string>

#include "gtest/gtest.h"

namespace {

TEST(EmbeddedPythonTest, ImportsTorchAndComputes) {
  Py_InitializeEx(/*initsigs=*/0);
  PyObject* main_module = PyImport_AddModule("__main__");  // borrowed
  PyObject* globals = PyModule_GetDict(main_module);       // borrowed
  PyObject* result = PyRun_String(
      "import torch\n"
      "value = float(torch.add(torch.ones(4, 4), torch.ones(4, 4)).sum())\n",
      Py_file_input, globals, globals);
  if (result == nullptr) PyErr_Print();
  ASSERT_NE(result, nullptr);
  Py_DECREF(result);
  PyObject* value = PyDict_GetItemString(globals, "value");  // borrowed
  ASSERT_NE(value, nullptr);
  EXPECT_DOUBLE_EQ(PyFloat_AsDouble(value), 32.0);
  EXPECT_EQ(Py_FinalizeEx(), 0);
}

}  // namespace
