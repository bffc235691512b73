// A search's memo of collective times. While a CollectiveMemoScope lives on this thread, the
// collectives of collectives.hpp on the GPUs of its cluster (which must not change meanwhile) are
// computed once per GPU type, kind, group and size and then read back: the same pure function of
// the same inputs, so the times are bit-identical to computing them again.
#pragma once

#include <memory>

#include "paraplan/scenario.hpp"

namespace paraplan::detail {

class CollectiveMemoScope {
 public:
  explicit CollectiveMemoScope(const Cluster& cluster);
  ~CollectiveMemoScope();
  CollectiveMemoScope(const CollectiveMemoScope&) = delete;
  CollectiveMemoScope& operator=(const CollectiveMemoScope&) = delete;

  struct Table;  // collectives.cpp

 private:
  std::unique_ptr<Table> table_;
  Table* enclosing_;  // the scope this one hides, restored when it ends
};

}  // namespace paraplan::detail
