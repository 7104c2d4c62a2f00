#ifndef ICOUNT_TIMER_INTERNAL_CALLGRIND_PARSER_H_
#define ICOUNT_TIMER_INTERNAL_CALLGRIND_PARSER_H_

// A native parser for the profile files valgrind's callgrind writes
// (callgrind.out.<pid>, format spec:
// https://valgrind.org/docs/manual/cl-format.html), so that the timer can
// turn a run under callgrind into per-function instruction counts without
// perl at run time.
//
// The per-function numbers are the ones `callgrind_annotate --threshold=100`
// prints, keyed exactly as it prints them, so a result can be checked line by
// line against the reference tool. For example, after
//
//   $ valgrind --tool=callgrind --callgrind-out-file=cg.out /bin/ls /
//   $ cd / && callgrind_annotate --inclusive=no --threshold=100 cg.out
//   ...
//   574,202 (100.0%)  PROGRAM TOTALS
//   ...
//   Ir                file:function
//   --------------------------------------------------------------------------------
//   100,992 (17.59%)  ./elf/./elf/dl-lookup.c:do_lookup_x
//   [/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2]
//    32,032 ( 5.58%)  ./elf/../sysdeps/generic/dl-new-hash.h:_dl_lookup_symbol_x
//
// the same numbers come from
//
//   absl::StatusOr<CallgrindProfile> profile = ParseCallgrindFile("cg.out");
//   if (!profile.ok()) return profile.status();
//   profile->total;  // 574202
//   profile->exclusive.at(FunctionKey(
//       "./elf/./elf/dl-lookup.c", "do_lookup_x",
//       "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));  // 100992
//
// and `profile->inclusive` holds what `--inclusive=yes` prints.
//
// Functions are keyed (FunctionKey, timer/function_key.h) by file, name
// and recursion level, and by the object (ob=) in effect at the function's
// fn= line, if any; as text "<file>:<function>[ [<object>]]":
//   * <file> is the fl= name as callgrind wrote it; callgrind itself writes
//     "???" when it has no debug info. callgrind_annotate additionally strips
//     its own working directory from fl= names; we never do (run it from "/"
//     to compare).
//   * Costs after fi=/fe= (inlined code) belong to a separate key
//     "<inlined file>:<function>", and that key has no " [<object>]" unless
//     the same file:function pair also appears on a fn= line: annotate only
//     records objects at fn=. The fi=/fe= file also stays the current file
//     for later fn= and cfn= lines until the next fl=, as in annotate.
//   * Call targets are keyed "<cfi=/cfl= file, else current file>:<cfn=>",
//     never with an object (cob= is ignored, as in annotate).
//
// Inclusive counts follow callgrind_annotate --inclusive=yes exactly: a
// function that is the target of any call is credited with the sum of the
// inclusive costs of all calls into it, and any other function with its self
// cost plus the costs of the calls it makes. Recursion is not deduplicated:
// callgrind names recursion levels f, f'2, ... up to --separate-recs (default
// 2), and deeper levels show up as calls of f'2 into itself, each counted
// again. E.g. for d(n) = n <= 0 ? 0 : 1 + d(n - 1) called as d(6), "d" gets
// 58 and "d'2" gets 159 although d'2 runs only inside d: an inclusive count
// can exceed its callers' and even `total`.
//
// Where callgrind_annotate misreads data we follow the format spec instead:
//   * "calls=0" is a call like any other. Callgrind writes it, in every dump
//     after the first (--dump-before/--dump-after/--dump-every-bb,
//     callgrind_control --dump, CALLGRIND_DUMP_STATS), for the calls still
//     running at the previous dump; annotate adds the cost line after it to
//     the caller's self cost, so e.g. the program's entry point gets most of
//     the self cost. Rewrite "calls=0 " to "calls=1 " before comparing.
//   * A file with several parts (--combine-dumps=yes) sums the parts: their
//     function costs (annotate does too) and their totals (annotate prints
//     the last part's summary as PROGRAM TOTALS).
//   * Without summary: or totals: lines, `total` is the sum of self costs;
//     with --inclusive=yes annotate sums the inclusive counts instead.
//   * Functions before any fl= line are keyed ":<function>" as in annotate,
//     but the last of them is not dropped.
//
// The parser is strict where annotate warns and carries on: any line outside
// the format, and any sign of truncation, is an error naming the source and
// the 1-based line number (see ParseCallgrindOutput).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "timer/function_key.h"

namespace icount::timer::internal {

struct CallgrindProfile {
  // "creator:" and "cmd:" header values ("callgrind-3.19.0", "/bin/ls /"),
  // empty when absent.
  std::string creator;
  std::string command;

  // The "events:" names, e.g. {"Ir"} or {"Ir", "Dr", "Dw", ...} with
  // --cache-sim=yes. All counts below are of events[0].
  std::vector<std::string> events;

  // Number of parts (dumps) in the file; 1 unless --combine-dumps=yes.
  int num_parts = 0;

  // The program total of events[0]: per part, the "summary:" line if present
  // and not all zero, else the "totals:" line, else the sum of the part's
  // self costs (then `total_is_calculated`); summed over the parts.
  int64_t total = 0;
  bool total_is_calculated = false;
  // The same program total for every event, in the order of `events`
  // (total == event_totals[0]): e.g. the cache misses of --cache-sim=yes.
  std::vector<int64_t> event_totals;

  // Self cost per function, as printed by callgrind_annotate --inclusive=no.
  absl::flat_hash_map<FunctionKey, int64_t> exclusive;

  // Inclusive cost per function, as printed by callgrind_annotate
  // --inclusive=yes. Has every key of `exclusive`, plus call targets that
  // never appear on a fn= line under the same key.
  absl::flat_hash_map<FunctionKey, int64_t> inclusive;

  // The call graph: one arc per (caller, callee) pair, keyed as above, with
  // the calls' count and inclusive cost summed over every call site and part.
  // Calls that were still running at a dump (the stack above a client
  // request's DUMP_STATS) are included with the cost they had so far.
  struct CallArc {
    FunctionKey caller;
    FunctionKey callee;
    int64_t calls = 0;
    int64_t inclusive = 0;
  };
  std::vector<CallArc> calls;

  // Functions callgrind found no symbol for are named by their address
  // ("???:0x000000000004cf40 [/usr/lib/x86_64-linux-gnu/libtorch_cpu.so]"),
  // which moves whenever anything loaded before the object changes size (a
  // preloaded library, another build), so no two runs agree on it. Each
  // such key (of a function with an object) maps to the key that all of
  // its object's unnamed functions share:
  // "???:(unknown in libtorch_cpu.so) [/usr/lib/x86_64-linux-gnu/libtorch_cpu.so]"
  // (see MergeUnnamedFunctions and BuildCallTree).
  absl::flat_hash_map<FunctionKey, FunctionKey> unnamed_groups;
};

// Objects to name otherwise in function keys: object path as callgrind
// wrote it -> the name keys show. E.g. a program run from a scratch
// directory of its own ("/tmp/icount-run-grwsh9/worker") is named by the
// path it was built at, the same in every run.
using ObjectNames = absl::flat_hash_map<std::string, std::string>;

// Parses the contents of a callgrind output file. `source_name` (usually the
// file's path) only prefixes error messages, which read
// "<source_name>:<line>: <what is wrong>; expected <what>".
//
// Errors:
//   DataLossError: the input is truncated: it is empty, its last line has no
//     newline, it ends right after a calls= line, a part written by callgrind
//     has no closing "totals:" line, or a "totals:" line disagrees with the
//     sum of the part's cost lines.
//   InvalidArgumentError: any other line that does not follow the format,
//     e.g. a malformed cost line, an undefined compressed name "(12)", or a
//     call cost line missing after calls=.
absl::StatusOr<CallgrindProfile> ParseCallgrindOutput(std::string_view text,
                                                      std::string_view source_name,
                                                      const ObjectNames& object_names = {});

// Reads `path` and parses it with ParseCallgrindOutput. Returns NotFoundError
// or PermissionDeniedError (etc.) if the file cannot be read.
absl::StatusOr<CallgrindProfile> ParseCallgrindFile(const std::string& path,
                                                    const ObjectNames& object_names = {});

}  // namespace icount::timer::internal

#endif  // ICOUNT_TIMER_INTERNAL_CALLGRIND_PARSER_H_
