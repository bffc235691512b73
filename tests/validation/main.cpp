// The validation suite: the model against published measurements (tests/validation/data, a copy
// of shared/validation), a file per kind: throughput of 73 real training runs, a table per source
// (published_runs_test.cpp); memory, Korthikanti et al.'s figures and Megatron-LM's CI golden
// values (memory_test.cpp); launches that ran, which must fit (launches_fit_test.cpp); real
// out-of-memory outcomes (oom_outcomes_test.cpp); and the order of published sweeps
// (sweeps_test.cpp). Nothing in the model is fitted to these numbers.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
