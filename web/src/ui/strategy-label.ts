// One line that names a strategy's layout: "TP4 · PP2 · VP1 · CP1 · EP1 · DP32 · mbs 1 · ZeRO-1 ·
// selective", for the decision, comparison and Pareto views.
import type { RankedStrategy } from "../paraplan/types";
import { recomputeText } from "./strategy-text";

export function layoutLabel(ranked: RankedStrategy): string {
  const s = ranked.strategy;
  const parts = [
    `TP${s.tensor_model_parallel_size}`,
    `PP${s.pipeline_model_parallel_size}`,
    s.virtual_pipeline_model_parallel_size > 1 ? `VP${s.virtual_pipeline_model_parallel_size}` : "",
    s.context_parallel_size > 1
      ? `CP${s.context_parallel_size}${s.cp_comm_type ? `(${s.cp_comm_type})` : ""}`
      : "",
    s.expert_model_parallel_size > 1 ? `EP${s.expert_model_parallel_size}` : "",
    `DP${ranked.estimate.data_parallel_size}`,
    `mbs ${s.micro_batch_size}`,
    `ZeRO-${s.zero_stage}`,
    recomputeText(ranked),
  ];
  return parts.filter((part) => part !== "").join(" · ");
}
