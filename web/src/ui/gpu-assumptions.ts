// What the model assumes of a GPU preset, shown in the GPU editor: peak tensor throughput at the
// job's precision, the achievable GEMM plateau (the last point of the preset's efficiency curve),
// memory and its bandwidth, and the links with the share of line rate collectives reach. Each
// value carries the preset's source as its tooltip.
import { t } from "../i18n/i18n";
import type { GpuPreset } from "../paraplan/types";
import { h } from "./dom";
import { number, percent } from "./format";

// The efficiency a curve reaches on its largest sizes.
function plateau(curve: [number, number][] | undefined): number | undefined {
  return curve?.[curve.length - 1]?.[1];
}

export function gpuAssumptions(gpu: GpuPreset, precision: string): HTMLElement {
  const peak = gpu.tensor_tflops[precision as keyof GpuPreset["tensor_tflops"]];
  const gemm = plateau(
    precision === "fp8" ? (gpu.efficiency?.gemm_fp8 ?? gpu.efficiency?.gemm) : gpu.efficiency?.gemm,
  );
  const intra = plateau(gpu.efficiency?.intra_node);
  const inter = plateau(gpu.efficiency?.inter_node);
  const source = (key: string) => gpu.sources?.[key] ?? "";
  const rows: [string, string, string][] = [
    [
      t("gpu.peak", { precision }),
      peak === undefined ? "—" : `${number(peak, 1)} TFLOPS`,
      source("tensor_tflops"),
    ],
    [
      t("gpu.gemmPlateau"),
      peak === undefined || gemm === undefined
        ? "—"
        : `${number(peak * gemm, 0)} TFLOPS (${percent(gemm)})`,
      source(precision === "fp8" ? "efficiency.gemm_fp8" : "efficiency.gemm"),
    ],
    [
      t("gpu.memory"),
      `${number(gpu.hbm_gib, 1)} GiB${gpu.hbm_gb_per_s ? ` · ${number(gpu.hbm_gb_per_s, 0)} GB/s` : ""}`,
      source("hbm_gib"),
    ],
    [
      t("gpu.intra"),
      `${number(gpu.intra_node.gb_per_s, 0)} GB/s × ${gpu.intra_node.gpus}${
        intra === undefined ? "" : ` (${t("gpu.reached", { share: percent(intra) })})`
      } · ${gpu.intra_node.name}`,
      source("intra_node"),
    ],
    [
      t("gpu.inter"),
      `${number(gpu.inter_node.gb_per_s, 1)} GB/s${
        inter === undefined ? "" : ` (${t("gpu.reached", { share: percent(inter) })})`
      } · ${gpu.inter_node.name}`,
      source("inter_node"),
    ],
  ];
  return h(
    "div",
    { class: "gpu-assumptions", testid: "gpu-assumptions" },
    h("h4", { text: t("gpu.assumptions", { gpu: gpu.name }) }),
    h(
      "dl",
      { class: "summary" },
      ...rows.flatMap(([term, value, title]) => [
        h("dt", { text: term }),
        h("dd", { text: value, attrs: title ? { title } : {} }),
      ]),
    ),
  );
}
