// Short text for a ranked strategy's columns, shared by the table and the exports.
import { t } from "../i18n/i18n";
import type { TableRow } from "../paraplan/types";

// Values for several GPU types are joined by `separator`: a new line in the table.

// "a800: 4·4·4  h800: 14·14·14·13·13": stages grouped by GPU type, layers per stage. With
// `runs`, RUN_MIN or more stages in a row with the same layers are written once with their count
// ("h100: 3·4(×30)·1" for PP 32 of 126 layers): the table's column otherwise grows with the
// pipeline (PP 32 and 64 pushed the band off the results at 1440 px); exports keep every stage.
export function stagesText(ranked: TableRow, separator = "  ", runs = false): string {
  const chips = ranked["pipeline-stage-chips"];
  const layers = ranked["pipeline-stage-layers"];
  const groups: { gpu: string; layers: number[] }[] = [];
  chips.forEach((gpu, index) => {
    const last = groups[groups.length - 1];
    if (last?.gpu === gpu) last.layers.push(layers[index]);
    else groups.push({ gpu, layers: [layers[index]] });
  });
  const write = runs ? layerRuns : (counts: number[]) => counts.join("·");
  return groups.map((group) => `${group.gpu}: ${write(group.layers)}`).join(separator);
}

// Fewer stages in a row than this are listed one by one ("4·4" reads better than "4(×2)").
const RUN_MIN = 3;

// "3·4(×30)·1": layers per stage, a run of RUN_MIN or more equal counts as "layers(×stages)".
export function layerRuns(counts: readonly number[]): string {
  const parts: string[] = [];
  for (let start = 0; start < counts.length;) {
    let end = start + 1;
    while (end < counts.length && counts[end] === counts[start]) end++;
    const length = end - start;
    parts.push(
      length >= RUN_MIN
        ? `${counts[start]}(×${length})`
        : Array(length).fill(counts[start]).join("·"),
    );
    start = end;
  }
  return parts.join("·");
}

// "selective", or "a800 full/uniform/1 · h800 none" when GPU types differ.
export function recomputeText(ranked: TableRow, separator = " · "): string {
  const granularity = ranked["recompute-granularity"];
  const describe = (gpu: string) => {
    const value = granularity[gpu];
    return value === "full"
      ? `full/${ranked["recompute-method"][gpu]}/${ranked["recompute-num-layers"][gpu]}`
      : value;
  };
  const gpus = Object.keys(granularity).filter((gpu) => (ranked.gpus_used[gpu] ?? 0) > 0);
  const texts = gpus.map(describe);
  // Activations of N layers offloaded to host memory (the search's other answer to memory), or
  // those of the chosen submodules (fine-grained offloading, as pinned).
  const offloaded = ranked.strategy.cpu_offloading_num_layers ?? 0;
  const modules = ranked.strategy.offload_modules ?? [];
  const offload =
    (offloaded > 0 ? `${separator}${t("table.offloadedLayers", { n: offloaded })}` : "") +
    (modules.length > 0
      ? `${separator}${t("table.offloadedModules", { modules: modules.join(", ") })}`
      : "");
  if (texts.every((text) => text === texts[0])) return (texts[0] ?? "") + offload;
  return gpus.map((gpu, index) => `${gpu} ${texts[index]}`).join(separator) + offload;
}

// Peak memory per GPU in GiB, for each GPU type the strategy uses.
export function memoryByGpu(ranked: TableRow): [string, number][] {
  return Object.entries(ranked["max-use-mem-size"]).filter(
    ([gpu]) => (ranked.gpus_used[gpu] ?? 0) > 0,
  );
}

export function gpusText(ranked: TableRow, separator = " + "): string {
  const used = Object.entries(ranked.gpus_used).filter(([, n]) => n > 0);
  return used.map(([gpu, n]) => `${n} ${gpu}`).join(separator);
}

export function yesNo(value: boolean): string {
  return t(value ? "table.yes" : "table.no");
}
