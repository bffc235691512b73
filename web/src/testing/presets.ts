// The repository's preset files (presets/**/*.json) as the module's catalogue gives them,
// for the unit tests. Model presets lack the parameter count the module adds; no test needs it.
import type { GpuPreset, ModelPreset, Presets } from "../paraplan/types";
import { Catalogue } from "../state/catalogue";

const gpuFiles = import.meta.glob<GpuPreset>("../../../presets/gpus/*.json", {
  eager: true,
  import: "default",
});
const modelFiles = import.meta.glob<Omit<ModelPreset, "parameters">>(
  "../../../presets/models/*.json",
  { eager: true, import: "default" },
);

export const PRESETS: Presets = {
  gpus: Object.values(gpuFiles),
  models: Object.values(modelFiles).map((model) => ({ ...model, parameters: 0 })),
};

export const catalogue = new Catalogue(PRESETS);
