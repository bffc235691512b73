// Looking up presets the way the core does: by id or alias, ignoring case, '_' and '-'.
import type { GpuPreset, ModelPreset, Presets } from "../paraplan/types";

const normalise = (name: string) => name.toLowerCase().replace(/[-_]/g, "");

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
  const key = normalise(name.trim());
  if (key === "") return undefined;
  return items.find((item) =>
    [item.id, ...(item.aliases ?? [])].some((id) => normalise(id) === key),
  );
}
