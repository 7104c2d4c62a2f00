#include "expand/definition.h"

#include <string>
#include <utility>
#include <vector>

namespace icount::expand {

bool operator==(const TimerArgs& a, const TimerArgs& b) {
  return a.stmt == b.stmt && a.setup == b.setup && a.global_setup == b.global_setup &&
         a.num_threads == b.num_threads && a.language == b.language &&
         a.torchscript_artifact == b.torchscript_artifact &&
         a.torchscript_model_source == b.torchscript_model_source &&
         a.min_libtorch_version == b.min_libtorch_version;
}

GroupedVariants GroupedVariants::FromTable(std::string table, std::vector<int> num_threads,
                                           SourceLocation where) {
  GroupedVariants variants;
  variants.table = std::move(table);
  variants.num_threads = std::move(num_threads);
  variants.where = where;
  return variants;
}

BenchmarkTree::BenchmarkTree(std::initializer_list<Entry> entries) : entries_(entries) {}

BenchmarkTree& BenchmarkTree::Add(LabelKey key, Value value, SourceLocation where) {
  entries_.emplace_back(std::move(key), std::move(value), where);
  return *this;
}

BenchmarkTree::Entry::Entry(LabelKey key, Value value, SourceLocation where)
    : key(std::move(key)), value(std::move(value)), where(where) {}
BenchmarkTree::Entry::Entry(LabelKey key, BenchmarkTree value, SourceLocation where)
    : key(std::move(key)), value(std::move(value)), where(where) {}

}  // namespace icount::expand
