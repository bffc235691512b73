// Messages between the page and the worker that runs the WebAssembly module.
// Every request carries an id; the worker answers it with any number of
// "progress" and "partial" messages, then one "result" or "error".
import type {
  CoreText,
  HfImport,
  ParameterCounts,
  Presets,
  Report,
  ScalingPointResult,
  ScalingRequest,
  Scenario,
  SweepGrid,
  SweepPointResult,
  SweepRequest,
  SearchProgress,
  SearchRequest,
  SearchResult,
  TraceResult,
} from "../paraplan/types";

// The module's version and its preset catalogue.
// One row of the core's strategy-key table, as `paraplan schema` prints it.
export interface StrategyKeySchema {
  name: string;
  type: "integer" | "boolean" | "choice" | "choice_set" | "fraction" | "gpu_list" | "integer_list";
  min?: number;
  max?: number;
  max_is_num_layers?: boolean;
  choices?: string[];
}

// The core's input schema (`paraplan schema`): the limits it checks and its strategy keys.
export interface CoreSchema {
  limits: {
    max_gpus: number;
    max_gpus_per_node: number;
    max_global_batch_size: number;
    max_seq_length: number;
    max_layers: number;
    max_model_dimension: number;
    max_vocab: number;
  };
  strategy_keys: StrategyKeySchema[];
}

export interface ModuleInfo {
  version: string;
  presets: Presets;
  schema: CoreSchema;
}

export interface Methods {
  info: { params: null; result: ModuleInfo };
  // Starts the module (loaded, presets parsed) and answers its version: nothing else is done,
  // so that a search sent next is not kept waiting. `searchFollows`: the page is about to send a
  // search (a link with run=1), so the worker warms nothing up (warm-up.ts): that search compiles
  // its own code, and a warm-up search under way when it arrives would hold it back.
  load: { params: { searchFollows: boolean }; result: string };
  search: { params: SearchRequest; result: SearchResult };
  // Searches one after another (the scaling view); each result also comes as a "partial".
  searchSeries: { params: SearchRequest[]; result: SearchResult[] };
  // A scaling series: its cluster sizes, then one call per size (on a pool of workers).
  scalingSizes: { params: ScalingRequest; result: number[] };
  scalingPoint: {
    params: { request: ScalingRequest; numGpus: number };
    result: ScalingPointResult;
  };
  // A hardware sweep: its grid, then one call per point.
  sweepGrid: { params: SweepRequest; result: SweepGrid };
  sweepPoint: { params: { request: SweepRequest; index: number }; result: SweepPointResult };
  // A scenario with a strategy: its report and simulated schedule.
  trace: { params: Scenario; result: TraceResult };
  // A Hugging Face config.json, as the text the user gave.
  importHfConfig: { params: string; result: HfImport };
  // A scenario's model: its parameter counts (the custom model's live count).
  parameterCounts: { params: Scenario["model"]; result: ParameterCounts };
  // A scenario with a strategy: its report alone (estimate mode, sensitivities).
  estimate: { params: Scenario; result: Report };
}
export type Method = keyof Methods;

export interface MethodRequest<M extends Method> {
  id: number;
  method: M;
  params: Methods[M]["params"];
}

// Any request: a union with one member per method, so that checking `method` narrows `params`.
export type Request = { [M in Method]: MethodRequest<M> }[Method];

// `step` counts the searches of a series (0 for a single search).
export interface Progress {
  step: number;
  steps: number;
  search: SearchProgress;
}

// What the worker reports of an error the module threw: the whole one-line message, and,
// from modules that give them, the JSON path of the value ("" for none) and the message
// without the path, and its id and values where it has an id (i18n/core-texts.ts).
export interface ErrorFields {
  message: string;
  path?: string;
  detail?: string;
  text?: CoreText;
}

// The page's first message to each worker, apart from the requests: the WebAssembly module it
// compiled once for all its workers (worker/compiled.ts), or null where it could not, and the
// worker fetches and compiles the module itself.
export interface ModuleMessage {
  wasmModule: WebAssembly.Module | null;
}

export type Response =
  | { id: number; type: "progress"; progress: Progress }
  | { id: number; type: "partial"; index: number; result: SearchResult }
  | { id: number; type: "result"; result: Methods[Method]["result"] }
  | ({ id: number; type: "error" } & ErrorFields);
