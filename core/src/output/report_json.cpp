#include <algorithm>
#include <nlohmann/json.hpp>

#include "paraplan/report.hpp"
#include "paraplan/units.hpp"

namespace paraplan {
namespace {

using units::kGiB;

nlohmann::json breakdown_json(const TimeBreakdown& t) {
  return {{"compute", t.compute_s}, {"recompute", t.recompute_s}, {"tp_comm", t.tp_comm_s},
          {"pp_comm", t.pp_comm_s}, {"dp_comm", t.dp_comm_s},     {"cp_comm", t.cp_comm_s},
          {"ep_comm", t.ep_comm_s}, {"optimizer", t.optimizer_s}, {"bubble", t.bubble_s},
          {"offload", t.offload_s}};
}

nlohmann::json stage_memory_json(const StageReport& stage) {
  const StageMemory& m = stage.memory;
  const MemoryReserve& r = m.reserve;
  return {{"gpu", stage.gpu},
          {"layers", stage.layers},
          {"peak_gib", m.peak_bytes() / kGiB},
          {"peak_allocated_gib", m.peak_allocated_bytes() / kGiB},
          {"peak_reserved_gib", m.peak_reserved_bytes() / kGiB},
          {"capacity_gib", stage.capacity_bytes / kGiB},
          {"headroom_gib", (stage.capacity_bytes - m.peak_bytes()) / kGiB},
          {"weights_gib", m.weights_bytes / kGiB},
          {"gradients_gib", m.gradients_bytes / kGiB},
          {"optimizer_gib", m.optimizer_bytes / kGiB},
          {"activations_gib", m.activations_bytes / kGiB},
          {"graph_pool_gib", m.graph_pool_bytes / kGiB},
          {"other_gib", m.other_bytes() / kGiB},
          {"host_gib", m.host_bytes / kGiB},
          {"reserve_gib",
           {{"cuda_context", r.cuda_context_bytes / kGiB},
            {"workspaces", r.workspaces_bytes / kGiB},
            {"nccl_buffers", r.nccl_buffers_bytes / kGiB},
            {"userbuffers", r.userbuffers_bytes / kGiB},
            {"dispatcher_buffers", r.dispatcher_buffers_bytes / kGiB},
            {"fragmentation", r.fragmentation_bytes / kGiB}}},
          {"in_flight_micro_batches", stage.in_flight_micro_batches}};
}

nlohmann::json stage_time_json(const StageReport& stage) {
  return {{"gpu", stage.gpu},
          {"layers", stage.layers},
          {"forward_s", stage.forward_s},
          {"backward_s", stage.backward_s},
          {"recompute_s", stage.recompute_s},
          {"pp_comm_s", stage.pp_comm_s},
          {"dp_comm_exposed_s", stage.dp_comm_exposed_s},
          {"host_copy_gib", stage.host_copy_bytes / kGiB},
          {"optimizer_s", stage.optimizer_s}};
}

// Sets `out[key]` to `text`'s id and values where it has an id.
void put_core_text(nlohmann::json& out, const char* key, const CoreText& text) {
  if (!text.id.empty()) out[key] = to_json(text);
}

// docs/contract.md section 4 `uncertainty`.
nlohmann::json uncertainty_json(const Uncertainty& u) {
  nlohmann::json out = {
      {"tokens_per_s_per_gpu", {u.low_tokens_per_s_per_gpu, u.high_tokens_per_s_per_gpu}},
      {"level", u.level},
      {"regime", u.regime},
      {"runs", u.runs},
      {"basis", u.basis}};
  put_core_text(out, "regime_text", u.regime_text);
  put_core_text(out, "basis_text", u.basis_text);
  return out;
}

nlohmann::json validation_json(const Validation& v) {
  nlohmann::json texts = nlohmann::json::array();
  for (const CoreText& note : v.note_texts) texts.push_back(to_json(note));
  return {{"validated", v.validated}, {"notes", v.notes}, {"note_texts", std::move(texts)}};
}

}  // namespace

// A text's id and values (docs/contract.md section 4, "Text ids"): {"id", "args": {NAME:
// VALUE}, "parts": [...]}, parts only where it includes other texts.
nlohmann::json to_json(const CoreText& text) {
  nlohmann::json args = nlohmann::json::object();
  for (const auto& [name, value] : text.args) args[name] = value;
  nlohmann::json out = {{"id", text.id}, {"args", std::move(args)}};
  if (!text.parts.empty()) {
    nlohmann::json& parts = out["parts"] = nlohmann::json::array();
    for (const CoreText& part : text.parts) parts.push_back(to_json(part));
  }
  return out;
}

double Report::peak_memory_bytes() const {
  double peak = 0;
  for (const StageReport& stage : stages) peak = std::max(peak, stage.memory.peak_bytes());
  return peak;
}

double Report::peak_allocated_bytes() const {
  double peak = 0;
  for (const StageReport& stage : stages) {
    peak = std::max(peak, stage.memory.peak_allocated_bytes());
  }
  return peak;
}

double Report::headroom_bytes() const {
  double headroom = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    const double free = stages[i].capacity_bytes - stages[i].memory.peak_bytes();
    headroom = i == 0 ? free : std::min(headroom, free);
  }
  return headroom;
}

nlohmann::json to_table_json(const Report& report) {
  nlohmann::json out = {{"feasible", report.feasible},
                        {"infeasible_reasons", report.infeasible_reasons},
                        {"infeasible_reason_ids", report.infeasible_reason_ids},
                        {"iteration_time_s", report.iteration_time_s},
                        {"tokens_per_s_per_gpu", report.tokens_per_s_per_gpu},
                        {"mfu", report.mfu},
                        {"memory",
                         {{"peak_gib_per_gpu", report.peak_memory_bytes() / kGiB},
                          {"verdict", to_string(report.memory_verdict)},
                          {"verdict_reason", report.memory_verdict_reason}}},
                        {"num_gpus", report.num_gpus},
                        {"data_parallel_size", report.data_parallel_size},
                        {"validation", validation_json(report.validation)},
                        {"uncertainty", uncertainty_json(report.uncertainty)}};
  put_core_text(out["memory"], "verdict_reason_text", report.memory_verdict_text);
  return out;
}

nlohmann::json to_json(const Report& report) {
  nlohmann::json memory_stages = nlohmann::json::array();
  nlohmann::json time_stages = nlohmann::json::array();
  for (const StageReport& stage : report.stages) {
    memory_stages.push_back(stage_memory_json(stage));
    time_stages.push_back(stage_time_json(stage));
  }
  // The table's keys, and the rest of the report.
  nlohmann::json out = to_table_json(report);
  nlohmann::json& memory = out["memory"];
  memory["peak_allocated_gib_per_gpu"] = report.peak_allocated_bytes() / kGiB;
  memory["headroom_gib"] = report.headroom_bytes() / kGiB;
  memory["tight"] = report.memory_tight;
  memory["warnings"] = report.memory_warnings;
  memory["per_stage"] = std::move(memory_stages);
  out["tokens_per_s"] = report.tokens_per_s;
  out["samples_per_s"] = report.samples_per_s;
  out["model_tflops_per_gpu"] = report.model_tflops_per_gpu;
  out["hfu"] = report.hfu;
  out["model_tflops_per_gpu_causal"] = report.model_tflops_per_gpu_causal;
  out["mfu_causal"] = report.mfu_causal;
  out["time_breakdown_s"] = breakdown_json(report.time_breakdown);
  out["pipeline"] = {{"stages", std::move(time_stages)},
                     {"bottleneck_stage", report.bottleneck_stage},
                     {"num_micro_batches", report.num_micro_batches}};
  out["model_parameters"] = report.model_parameters;
  out["model_flops_per_token"] = report.model_flops_per_token;
  out["model_flops_per_token_causal"] = report.model_flops_per_token_causal;
  return out;
}

}  // namespace paraplan
