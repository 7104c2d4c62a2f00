#include "timer/valgrind_log.h"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace icount::timer {
namespace {

// A stack frame line: "==PID==    at 0xADDR: FUNCTION (in LIBRARY)" or
// "... (file.c:74)".
struct Frame {
  std::string function;
  std::string where;  // the library, or the source file and line
};

// The text after the "==PID==" prefix, or the line itself.
absl::string_view WithoutPid(absl::string_view line) {
  if (absl::StartsWith(line, "==")) {
    const size_t end = line.find("==", 2);
    if (end != absl::string_view::npos) line.remove_prefix(end + 2);
  }
  return absl::StripLeadingAsciiWhitespace(line);
}

bool ParseFrame(absl::string_view line, Frame& frame) {
  absl::string_view text = WithoutPid(line);
  if (!absl::ConsumePrefix(&text, "at 0x") && !absl::ConsumePrefix(&text, "by 0x")) return false;
  const size_t colon = text.find(": ");
  if (colon == absl::string_view::npos) return false;
  text.remove_prefix(colon + 2);
  const size_t open = text.rfind(" (");
  if (open == absl::string_view::npos || !absl::EndsWith(text, ")")) {
    frame = {std::string(text), ""};
    return true;
  }
  absl::string_view where = text.substr(open + 2, text.size() - open - 3);
  absl::ConsumePrefix(&where, "in ");
  frame = {std::string(text.substr(0, open)), std::string(where)};
  return true;
}

std::string DescribeFrame(const Frame& frame) {
  if (frame.where.empty()) return frame.function;
  return absl::StrCat(frame.function, " (", frame.where, ")");
}

// The first frame at or after `from` in `lines`.
bool FirstFrame(const std::vector<absl::string_view>& lines, size_t from, Frame& frame) {
  for (size_t i = from; i < lines.size() && i < from + 4; ++i) {
    if (ParseFrame(lines[i], frame)) return true;
  }
  return false;
}

// Instructions that a CPU may run although its CPUID does not report them,
// which valgrind then refuses.
std::string Mnemonic(absl::string_view bytes) {
  if (absl::StartsWith(bytes, "0xF 0x1 0xF9")) return "RDTSCP";
  return "";
}

std::string UnrecognisedInstruction(const std::vector<absl::string_view>& lines) {
  std::string bytes;
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    if (absl::ConsumePrefix(&line, "vex amd64->IR: unhandled instruction bytes: ")) {
      // The instruction and a few bytes after it; the first three or four
      // name it.
      std::vector<absl::string_view> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (parts.size() > 4) parts.resize(4);
      bytes = absl::StrJoin(parts, " ");
      continue;
    }
    if (!absl::StrContains(lines[i], "valgrind: Unrecognised instruction")) continue;
    Frame frame;
    const bool located = FirstFrame(lines, i + 1, frame);
    const std::string mnemonic = Mnemonic(bytes);
    std::string what = mnemonic.empty() ? "an instruction" : "the instruction " + mnemonic;
    if (!bytes.empty()) absl::StrAppend(&what, " (bytes ", bytes, ")");
    std::string message =
        absl::StrCat("valgrind cannot run ", what, located ? " in " + DescribeFrame(frame) : "",
                     ", so the process died of SIGILL.");
    if (mnemonic == "RDTSCP") {
      absl::StrAppend(
          &message,
          " This CPU runs RDTSCP but its CPUID does not report it (no \"rdtscp\" flag in "
          "/proc/cpuinfo), and valgrind 3.19 then refuses it. Binaries that link "
          "//third_party/libtorch replace libhwy's use of it (hwy::platform::TimerResolution, "
          "see third_party/libtorch/README.md);",
          located && absl::StrContains(frame.function, "hwy::platform::TimerResolution")
              ? " this binary does not: rebuild it with icount's //third_party/libtorch (or "
                "@icount//third_party/libtorch), or run on a CPU whose CPUID reports RDTSCP."
              : " another library in this process runs RDTSCP: keep it out of the measured "
                "process, or run on a CPU whose CPUID reports RDTSCP.");
    } else {
      absl::StrAppend(&message,
                      " Valgrind does not support this instruction on this CPU: run the "
                      "measurement on another CPU, or keep the code that uses it out of the "
                      "measured process.");
    }
    return message;
  }
  return "";
}

std::string FatalSignal(const std::vector<absl::string_view>& lines) {
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view text = WithoutPid(lines[i]);
    if (!absl::ConsumePrefix(&text, "Process terminating with default action of signal ")) {
      continue;
    }
    Frame frame;
    // The frame follows a line saying what happened ("Access not within
    // mapped region at address 0x0").
    const bool located = FirstFrame(lines, i + 1, frame);
    return absl::StrCat("the process under valgrind was killed by signal ", text,
                        located ? " in " + DescribeFrame(frame) : "", ".");
  }
  return "";
}

}  // namespace

std::string DiagnoseValgrindLog(absl::string_view log) {
  const std::vector<absl::string_view> lines = absl::StrSplit(log, '\n');
  if (std::string instruction = UnrecognisedInstruction(lines); !instruction.empty()) {
    return instruction;
  }
  if (absl::StrContains(log, "Valgrind's memory management: out of memory")) {
    return "valgrind ran out of memory: run fewer processes under valgrind at once (--jobs) or "
           "free memory.";
  }
  return FatalSignal(lines);
}

std::string ValgrindLogReport(const std::string& path, size_t max_bytes) {
  std::ifstream in(path);
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (log.empty()) return "";
  const std::string diagnosis = DiagnoseValgrindLog(log);
  const std::string tail =
      log.size() <= max_bytes ? log : "..." + log.substr(log.size() - max_bytes);
  return absl::StrCat(diagnosis.empty() ? "" : diagnosis + "\n", "--- valgrind's log (", path,
                      ") ---\n", tail);
}

}  // namespace icount::timer
