// Stable ids of the report's texts (CoreText::id: the memory verdict's reason, the uncertainty
// band's regime and basis, the validation notes). The page writes each in its language by id
// (web/src/i18n/core-texts.ts); its test reads this list and fails on an id it cannot write.
#pragma once

namespace paraplan::text_id {

// The memory verdict's reason (model/estimate.cpp).
inline constexpr const char* kVerdictFits = "memory verdict: fits";
inline constexpr const char* kVerdictAtRisk = "memory verdict: at_risk";
inline constexpr const char* kVerdictOom = "memory verdict: oom";
inline constexpr const char* kMemoryRejected = "memory not estimated: rejected";
inline constexpr const char* kMemoryOverflow = "memory not estimated: overflow";

// The uncertainty band's regime and basis (model/uncertainty.cpp).
inline constexpr const char* kRegimeGpuKindFramework = "regime: GPU family, kind, framework family";
inline constexpr const char* kRegimeGpuKind = "regime: GPU family, kind";
inline constexpr const char* kRegimeKind = "regime: kind";
inline constexpr const char* kRegimeAll = "regime: all runs";
inline constexpr const char* kRegimeTooFewRuns = "regime with too few runs";
inline constexpr const char* kBand = "band from published runs";
inline constexpr const char* kBandWiderRegime = "band from a wider regime";

// Why a row ranks above a faster one within the noise (search/final_order.cpp).
inline constexpr const char* kRankedAboveSaferVerdict = "ranked above: safer memory verdict";
inline constexpr const char* kRankedAboveFewerSwitches = "ranked above: fewer risky switches";

// Why a search found no strategy (search/diagnosis.cpp): no GPU runs the precision, nothing fits
// in memory (the closest miss), or the rules ruled every candidate out (one part per rule: its
// reason, with the reason's own id, and how many candidates it dropped).
inline constexpr const char* kNoTensorCores = "no strategy: no tensor cores for the precision";
inline constexpr const char* kNoStrategyFits = "no strategy: nothing fits in GPU memory";
inline constexpr const char* kNoStrategyMeetsRules = "no strategy: the rules ruled it out";
inline constexpr const char* kRuledOutCandidates = "candidates a rule ruled out";

// Why a search stopped early (search/ranking.cpp), and a scaling point without a strategy
// (search/scaling.cpp: its search's diagnosis and why it stopped as parts).
inline constexpr const char* kStoppedTimeBudget = "search stopped: time budget";
inline constexpr const char* kStoppedCancelled = "search stopped: cancelled";
inline constexpr const char* kStoppedEarly = "the search stopped early";
inline constexpr const char* kNoStrategyAtSize = "no strategy at this size";

// The validation notes (model/validated_regime.cpp, model/torchtitan_family.cpp).
inline constexpr const char* kGpuNotPreset = "GPU not a preset";
inline constexpr const char* kGpuNeverValidated = "GPU type never validated";
inline constexpr const char* kPrecisionNeverValidated = "precision never validated on the GPU";
inline constexpr const char* kMfuAboveBest = "MFU above the best published";
inline constexpr const char* kFamilyNeverValidated = "model family never validated";
inline constexpr const char* kFrameworkNeverValidated = "framework and ZeRO stage never validated";
inline constexpr const char* kTorchtitanOrderOnly =
    "torchtitan never validated, ranked as its benchmarks";
inline constexpr const char* kDeepSpeedZero3Slower =
    "DeepSpeed ZeRO-3 of 2021 ran slower than predicted";
inline constexpr const char* kGroupedGemmOffLowerBound = "grouped GEMM off is a lower bound";
inline constexpr const char* kCudaGraphPoolNotPriced = "CUDA graph pool not priced";
inline constexpr const char* kSequenceLongerThanValidated = "sequence longer than validated";
inline constexpr const char* kMoeMeasuredError = "mixture-of-experts measured error";
inline constexpr const char* kFsdpMeasuredError = "FSDP measured error";
inline constexpr const char* kTorchtitanDropsMtp = "torchtitan drops multi-token prediction";

}  // namespace paraplan::text_id
