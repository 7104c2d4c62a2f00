#include "timer/function_counts.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "re2/re2.h"

namespace icount::timer {
namespace {

void SortRows(std::vector<FunctionCount>& rows) {
  // Python's sorted(..., reverse=True) on (count, function) tuples.
  std::stable_sort(rows.begin(), rows.end(), [](const FunctionCount& a, const FunctionCount& b) {
    if (a.count != b.count) return a.count > b.count;
    return a.function > b.function;
  });
}

}  // namespace

FunctionCounts::FunctionCounts(std::vector<FunctionCount> rows, bool inclusive, bool truncate_rows)
    : rows_(std::move(rows)), inclusive_(inclusive), truncate_rows_(truncate_rows) {
  SortRows(rows_);
}

FunctionCounts FunctionCounts::FromMap(const absl::flat_hash_map<FunctionKey, int64_t>& counts,
                                       bool inclusive) {
  std::vector<FunctionCount> rows;
  rows.reserve(counts.size());
  for (const auto& [function, count] : counts) {
    if (count != 0) rows.push_back({count, function});
  }
  return FunctionCounts(std::move(rows), inclusive);
}

int64_t FunctionCounts::Sum() const {
  int64_t sum = 0;
  for (const FunctionCount& row : rows_) sum += row.count;
  return sum;
}

FunctionCounts FunctionCounts::Slice(size_t begin, size_t end) const {
  end = std::min(end, rows_.size());
  begin = std::min(begin, end);
  return FunctionCounts(std::vector<FunctionCount>(rows_.begin() + begin, rows_.begin() + end),
                        inclusive_, /*truncate_rows=*/false);
}

FunctionCounts FunctionCounts::Filter(const std::function<bool(const FunctionKey&)>& keep) const {
  std::vector<FunctionCount> rows;
  for (const FunctionCount& row : rows_) {
    if (keep(row.function)) rows.push_back(row);
  }
  return FunctionCounts(std::move(rows), inclusive_);
}

FunctionCounts FunctionCounts::Transform(
    const std::function<FunctionKey(const FunctionKey&)>& rename) const {
  absl::flat_hash_map<FunctionKey, int64_t> counts;
  for (const FunctionCount& row : rows_) counts[rename(row.function)] += row.count;
  return FromMap(counts, inclusive_);
}

FunctionCounts FunctionCounts::Denoise() const {
  return Filter([](const FunctionKey& function) {
    return !(absl::EndsWith(function.file(), "dictobject.c") &&
             absl::StartsWith(function.function(), "lookdict_unicode"));
  });
}

FunctionKey StandardizeFunctionKey(const FunctionKey& function) {
  // The reference's rules for the file part, applied in order (each
  // anchored, so it matches at most once); the object goes.
  static const auto* const kRules = new std::vector<std::pair<RE2*, std::string>>{
      {new RE2(R"(^.+build/\.\./)"), "build/../"},
      {new RE2(R"(^.+/build/aten/)"), "build/aten/"},
      {new RE2(R"(^.+/Python/)"), "Python/"},
      {new RE2(R"(^.+/Objects/)"), "Objects/"},
  };
  std::string file = function.file();
  for (const auto& [pattern, replacement] : *kRules) {
    RE2::GlobalReplace(&file, *pattern, replacement);
  }
  return FunctionKey(std::move(file), function.function(), "", function.recursion());
}

FunctionCountsProto FunctionCountsToProto(const FunctionCounts& counts) {
  FunctionCountsProto proto;
  proto.set_inclusive(counts.inclusive());
  for (const FunctionCount& row : counts.rows()) {
    FunctionCountProto* out = proto.add_rows();
    out->set_count(row.count);
    *out->mutable_key() = FunctionKeyToProto(row.function);
  }
  return proto;
}

FunctionCounts FunctionCountsFromProto(const FunctionCountsProto& proto) {
  std::vector<FunctionCount> rows;
  rows.reserve(proto.rows_size());
  for (const FunctionCountProto& row : proto.rows()) {
    rows.push_back({row.count(), row.has_key() ? FunctionKeyFromProto(row.key())
                                               : FunctionKeyFromText(row.function())});
  }
  return FunctionCounts(std::move(rows), proto.inclusive());
}

FunctionCounts FunctionCounts::Standardized() const { return Transform(StandardizeFunctionKey); }

absl::StatusOr<FunctionCounts> FunctionCounts::Merge(const FunctionCounts& other,
                                                     int64_t sign) const {
  if (inclusive_ != other.inclusive_) {
    auto kind = [](bool inclusive) { return inclusive ? "inclusive" : "exclusive"; };
    return absl::InvalidArgumentError(
        absl::StrCat("cannot ", sign > 0 ? "add" : "subtract", " ", kind(other.inclusive_),
                     " counts ", sign > 0 ? "to" : "from", " ", kind(inclusive_),
                     " ones: take both from Stats(inclusive) with the same `inclusive`"));
  }
  absl::flat_hash_map<FunctionKey, int64_t> counts;
  for (const FunctionCount& row : rows_) counts[row.function] += row.count;
  for (const FunctionCount& row : other.rows_) counts[row.function] += sign * row.count;
  return FromMap(counts, inclusive_);
}

absl::StatusOr<FunctionCounts> FunctionCounts::Add(const FunctionCounts& other) const {
  return Merge(other, 1);
}

absl::StatusOr<FunctionCounts> FunctionCounts::Subtract(const FunctionCounts& other) const {
  return Merge(other, -1);
}

FunctionCounts FunctionCounts::operator*(double factor) const {
  absl::flat_hash_map<FunctionKey, int64_t> counts;
  for (const FunctionCount& row : rows_) {
    counts[row.function] = static_cast<int64_t>(static_cast<double>(row.count) * factor);
  }
  return FromMap(counts, inclusive_);
}

namespace {

// A function's key in at most `width` characters, as a reader tells
// functions apart: by the function's name from its start, its object's
// file name kept apart and whole. Longer keys lose the object's directory,
// then the file, then the name's end:
//   "./string/../sysdeps/x86_64/multiarch/memcmp-avx2-movbe.S:__memcmp_avx2_movbe [/usr/lib/x86_64-linux-gnu/libc.so.6]"
//   -> "__memcmp_avx2_movbe [libc.so.6]"
std::string ShortName(const FunctionKey& key, size_t width) {
  if (key.text().size() <= width) return key.text();
  const std::string object =
      key.object().empty() ? "" : absl::StrCat(" [", key.object_name(), "]");
  const FunctionKey bare(key.file(), key.function(), "", key.recursion());
  const FunctionKey no_file("", key.function(), "", key.recursion());
  // The function as the key spells it, recursion level included.
  const std::string function = no_file.text().substr(1);
  if (bare.text().size() + object.size() <= width) return bare.text() + object;
  if (function.size() + object.size() <= width) return function + object;
  const size_t room = width > object.size() + 3 ? width - object.size() - 3 : 0;
  return absl::StrCat(function.substr(0, room), "...", object);
}

}  // namespace

std::string FunctionCounts::ToString(int linewidth) const {
  size_t count_len = 0;
  for (const FunctionCount& row : rows_) {
    // As the reference: len(str(c)) + int(c < 0), so negatives get an
    // extra column.
    count_len = std::max(count_len, absl::StrCat(row.count).size() + (row.count < 0 ? 1 : 0));
  }
  const size_t fn_len = static_cast<size_t>(
      std::max<int64_t>(static_cast<int64_t>(linewidth) - static_cast<int64_t>(count_len) - 4, 40));
  std::vector<std::string> lines;
  for (const FunctionCount& row : rows_) {
    const std::string function = ShortName(row.function, fn_len);
    std::string count = absl::StrCat(row.count);
    lines.push_back(absl::StrCat("  ",
                                 std::string(count_len - std::min(count_len, count.size()), ' '),
                                 count, "  ", function));
  }
  if (truncate_rows_ && lines.size() > 18) {
    std::vector<std::string> shortened(lines.begin(), lines.begin() + 9);
    shortened.push_back(std::string(count_len + 2 - std::min<size_t>(count_len + 2, 3), ' ') +
                        "...");
    shortened.insert(shortened.end(), lines.end() - 9, lines.end());
    lines = std::move(shortened);
  }
  if (!inclusive_) {
    lines.push_back("");
    lines.push_back(absl::StrCat("Total: ", Sum()));
  }
  return absl::StrJoin(lines, "\n");
}

}  // namespace icount::timer
