// The default memory margin and its basis: the band of peak memory where published launches went
// either way (docs/model.md, "Memory verdict"; tests/validation/oom_outcomes_test.cpp derives it
// again from the outcomes and fails when it drifts).
#include "paraplan/limits.hpp"

namespace paraplan::limits {

double default_memory_margin_percent() { return 19; }

}  // namespace paraplan::limits
