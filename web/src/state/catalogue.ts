// Looking up presets by id or alias with the core's rule (core/src/input/presets.cpp
// `normalize_name`): ASCII letters in any case, '_' the same as '-'. Nothing else is ignored:
// "h100sxm" is not "h100-sxm", and " h100" is not "h100".
import type { GpuPreset, ModelPreset, Presets } from "../paraplan/types";

export function normalisePresetName(name: string): string {
  return name.replace(/[A-Z_]/g, (c) => (c === "_" ? "-" : c.toLowerCase()));
}

export class Catalogue {
  constructor(readonly presets: Presets) {}

  model(name: string): ModelPreset | undefined {
    return find(this.presets.models, name);
  }

  gpu(name: string): GpuPreset | undefined {
    return find(this.presets.gpus, name);
  }
}

function find<T extends { id: string; aliases?: string[] }>(
  items: T[],
  name: string,
): T | undefined {
  const key = normalisePresetName(name);
  if (key === "") return undefined;
  return items.find((item) =>
    [item.id, ...(item.aliases ?? [])].some((id) => normalisePresetName(id) === key),
  );
}

// The GPUs per node the core takes when none is given: the fewest GPUs one host of the
// cluster's types launches (gpus_per_host, else the NVLink domain; core/src/input/scenario.cpp,
// contract section 2). Undefined when no type is known.
export function defaultGpusPerNode(gpus: readonly (GpuPreset | undefined)[]): number | undefined {
  const hosts = gpus.flatMap((gpu) =>
    gpu === undefined ? [] : [gpu.gpus_per_host ?? gpu.intra_node.gpus],
  );
  return hosts.length === 0 ? undefined : Math.min(...hosts);
}
