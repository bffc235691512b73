// Stable ids of the core's texts (CoreText::id: the memory verdict's reason, the uncertainty
// band's regime and basis, the validation notes, the launch targets' refusals, the Hugging Face
// import's reasons). The page writes each in its language by id
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

// The Hugging Face import's reasons for a key of config.json it did not map (input/hf_*.cpp).
inline constexpr const char* kHfIgnoredKey = "config key: ignored";
inline constexpr const char* kHfUnknownKey = "config key: unknown";
inline constexpr const char* kHfSeeKey = "config key: see another key";
inline constexpr const char* kHfAttentionBiasesOnly = "config: biases on the attention only";
inline constexpr const char* kHfMlpBiasesOnly = "config: biases on the MLP only";
inline constexpr const char* kHfQkvBiasesOnly = "config: biases on q, k and v only";
inline constexpr const char* kHfAttentionSinks = "config: attention sinks";
inline constexpr const char* kHfGroupLimitedRouting = "config: group-limited routing";
inline constexpr const char* kHfOneExpertGroup = "config: one expert group";
inline constexpr const char* kHfNoWindow = "config: no sliding window";
inline constexpr const char* kHfWindowOff = "config: sliding window switched off";
inline constexpr const char* kHfLayerTypesListWindows = "config: layer_types lists the windows";
inline constexpr const char* kHfLayerTypesUnknown = "config: layer_types not understood";
inline constexpr const char* kHfNoLayerWindowed = "config: no layer uses the window";
inline constexpr const char* kHfWindowOfQueryAlone = "config: window of the query alone";
inline constexpr const char* kHfWindowPattern = "config: sliding-window pattern";
inline constexpr const char* kHfAllLayersFull = "config: every layer full attention";
inline constexpr const char* kHfOtherLayersUnwindowed = "config: other layers without a window";

// Input errors of the strict readers (input/json_reader.cpp, input/hf_config_reader.hpp): the
// value got as `got_type` (its JSON type) and `got_value` (as describe writes it, strings quoted).
inline constexpr const char* kErrorIntegerRange = "input error: expected an integer in a range";
inline constexpr const char* kErrorPositiveInteger = "input error: expected a positive integer";
inline constexpr const char* kErrorNumberRange = "input error: expected a number in a range";
inline constexpr const char* kErrorBoolean = "input error: expected true or false";
inline constexpr const char* kErrorString = "input error: expected a string";
inline constexpr const char* kErrorChoice = "input error: expected one of the choices";
inline constexpr const char* kErrorObject = "input error: expected an object";
inline constexpr const char* kErrorRequired = "input error: is required";
inline constexpr const char* kErrorUnknownKey = "input error: unknown key";

// The other input errors of the core, each with the values its message names (input/, and the
// scaling and sweep requests, search/scaling.cpp and search/sweep.cpp).
inline constexpr const char* kErrorJsonTooLarge = "input error: JSON too large";
inline constexpr const char* kErrorJsonTooDeep = "input error: JSON nested too deep";
inline constexpr const char* kErrorJsonInvalid = "input error: not valid JSON";
inline constexpr const char* kErrorMemoryMargin = "input error: memory margin out of range";
inline constexpr const char* kErrorMemoryMarginType = "input error: memory margin not GiB or %";
inline constexpr const char* kErrorGpuEntries = "input error: expected GPU entries";
inline constexpr const char* kErrorGpuListedTwice = "input error: GPU type listed twice";
inline constexpr const char* kErrorChoiceArray = "input error: expected an array of choices";
inline constexpr const char* kErrorNotClusterGpu = "input error: not a GPU type of the cluster";
inline constexpr const char* kErrorStageList = "input error: expected one entry per stage";
inline constexpr const char* kErrorStageLayersSum = "input error: stage layers do not sum";
inline constexpr const char* kErrorStageListLength = "input error: stage list length";
inline constexpr const char* kErrorStageGpusRequired = "input error: stage GPU types required";
inline constexpr const char* kErrorYarnNeedsRope = "input error: YaRN needs rotary positions";
inline constexpr const char* kErrorYarnKeyNeedsFactor = "input error: YaRN key without YaRN";
inline constexpr const char* kErrorMustDivideHeads = "input error: must divide the heads";
inline constexpr const char* kErrorHeadDimRequired = "input error: head dimension required";
inline constexpr const char* kErrorWindowSkipNeedsWindow = "input error: skip needs a window";
inline constexpr const char* kErrorClampNeedsGated = "input error: clamp needs a gated unit";
inline constexpr const char* kErrorQkLayernormWithMla = "input error: qk_layernorm with MLA";
inline constexpr const char* kErrorUnknownPreset = "input error: unknown preset";
inline constexpr const char* kErrorCurve = "input error: expected a curve";
inline constexpr const char* kErrorCurvePoint = "input error: expected a curve point";
inline constexpr const char* kErrorCurveSizes = "input error: curve sizes must increase";
inline constexpr const char* kErrorFp8CurveRequired = "input error: fp8 curve required";
inline constexpr const char* kErrorFlashCurvePair = "input error: FlashAttention curves paired";
inline constexpr const char* kErrorIdLength = "input error: id length";
inline constexpr const char* kErrorReleaseEntries = "input error: expected release entries";
inline constexpr const char* kErrorReleasesIncrease = "input error: releases must increase";
inline constexpr const char* kErrorReleaseWithoutCore =
    "input error: release without Megatron-Core";
inline constexpr const char* kErrorNo16BitPeak = "input error: no 16-bit peak";
inline constexpr const char* kErrorGpuBase = "input error: expected a GPU preset id";
inline constexpr const char* kErrorCustomGpuId = "input error: name the customised GPU";
inline constexpr const char* kErrorRangeEmpty = "input error: the range is empty";
inline constexpr const char* kErrorScalingPoints = "input error: too many scaling sizes";
inline constexpr const char* kErrorWeakBatch = "input error: weak-scaling batch above the limit";
inline constexpr const char* kErrorSweepValue = "input error: sweep value out of range";
inline constexpr const char* kErrorSweepParameter = "input error: unknown sweep parameter";
inline constexpr const char* kErrorSweepSyntax = "input error: sweep syntax";
inline constexpr const char* kErrorSweepRange = "input error: sweep range syntax";
inline constexpr const char* kErrorSweepStep = "input error: sweep step";
inline constexpr const char* kErrorSweepValues = "input error: too many sweep values";
inline constexpr const char* kErrorSweepRequired = "input error: sweep required";
inline constexpr const char* kErrorSweepParameters = "input error: too many sweep parameters";
inline constexpr const char* kErrorSweptTwice = "input error: parameter swept twice";
inline constexpr const char* kErrorSweepPoints = "input error: too many sweep points";
inline constexpr const char* kErrorSweepList = "input error: expected a sweep list";
inline constexpr const char* kErrorSweepItem = "input error: expected a sweep item";
inline constexpr const char* kErrorSweepPoint = "input error: sweep point out of range";
inline constexpr const char* kErrorHfArchitectures = "input error: expected architectures";
inline constexpr const char* kErrorHfArchitecture = "input error: unknown architecture";
inline constexpr const char* kErrorHfModelType = "input error: unknown model type";
inline constexpr const char* kErrorHfArchitectureRequired = "input error: architecture required";
inline constexpr const char* kErrorHfActivation = "input error: activation not gated";
inline constexpr const char* kErrorHfMappedModel = "input error: the mapped model is invalid";
inline constexpr const char* kErrorHfNotObject = "input error: config not an object";
inline constexpr const char* kErrorHfMoeEveryLayer = "input error: MoE in every layer";
inline constexpr const char* kErrorHfDenseLayers = "input error: expected dense layer indices";
inline constexpr const char* kErrorHfDenseFirst = "input error: dense layers not the first";
inline constexpr const char* kErrorHfNoMoeLayer = "input error: no MoE layer";
inline constexpr const char* kErrorHfTopKDiffers = "input error: top-k keys differ";
inline constexpr const char* kErrorHfTopKRequired = "input error: top-k required";

// Why a launch target cannot launch a strategy (model/framework_rules.cpp unsupported): one of
// its own rules (by the rule's id, framework_rule_id), or a rule of the rulebook it keeps where
// the scenario's framework lifts it (with the rule's reason and name).
inline constexpr const char* kLaunchTargetRule = "launch target cannot express";
inline constexpr const char* kLaunchKeepsRule = "launch target keeps a rule";

}  // namespace paraplan::text_id
