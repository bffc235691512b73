// The Emscripten module factory built by `cmake --preset wasm` (build/wasm/paraplan.js,
// copied to src/generated/ by scripts/copy-wasm.mjs). All calls take and return JSON text and
// throw an Error carrying the CLI's one-line message; newer modules also give the Error
// `path` (the JSON path of the value, "" for none) and `detail` (the message without it).
import type { SearchProgress } from "./types";

export interface ParaplanModule {
  estimate(scenarioJson: string): string;
  search(
    requestJson: string,
    onProgress: ((progress: SearchProgress) => boolean | undefined) | null,
  ): string;
  trace(scenarioJson: string): string;
  // Scaling series and hardware sweeps, one point per call (core/include/paraplan/scaling.hpp,
  // sweep.hpp); absent from modules built before them.
  scalingSizes?(requestJson: string): string;
  scalingPoint?(
    requestJson: string,
    numGpus: number,
    onProgress: ((progress: SearchProgress) => boolean | undefined) | null,
  ): string;
  sweepGrid?(requestJson: string): string;
  sweepPoint?(requestJson: string, index: number): string;
  presets(): string;
  // The input schema: limits and the strategy-key table (core/src/input/request.cpp).
  schema(): string;
  version(): string;
  // Parses the built-in presets once, ahead of the first search; absent from older modules.
  warm?(): void;
  // A Hugging Face config.json (text): {architecture, model, unmapped, parameters}.
  importHfConfig(configJson: string): string;
  // A scenario's model (a preset name or an object, as JSON): its parameter counts.
  parameterCounts(modelJson: string): string;
}

export type CreateParaplan = (options?: {
  locateFile?: (path: string) => string;
  // Emscripten's hook for instantiating the module itself: calls `done` with the instance
  // (and its module) when ready; returns {} to say it will (src/settings.js, instantiateWasm).
  instantiateWasm?: (
    imports: WebAssembly.Imports,
    done: (instance: WebAssembly.Instance, module?: WebAssembly.Module) => void,
  ) => object;
}) => Promise<ParaplanModule>;
