// Messages between the page and the worker that runs the WebAssembly module.
// Every request carries an id; the worker answers it with any number of
// "progress" and "partial" messages, then one "result" or "error".
import type {
  Presets,
  Scenario,
  SearchProgress,
  SearchRequest,
  SearchResult,
  TraceResult,
} from "../paraplan/types";

export interface Methods {
  // The module's version and its preset catalogue.
  info: { params: null; result: { version: string; presets: Presets } };
  search: { params: SearchRequest; result: SearchResult };
  // Searches one after another (the scaling view); each result also comes as a "partial".
  searchSeries: { params: SearchRequest[]; result: SearchResult[] };
  // A scenario with a strategy: its report and simulated schedule.
  trace: { params: Scenario; result: TraceResult };
}
export type Method = keyof Methods;

export interface Request<M extends Method = Method> {
  id: number;
  method: M;
  params: Methods[M]["params"];
}

// `step` counts the searches of a series (0 for a single search).
export interface Progress {
  step: number;
  steps: number;
  search: SearchProgress;
}

export type Response =
  | { id: number; type: "progress"; progress: Progress }
  | { id: number; type: "partial"; index: number; result: SearchResult }
  | { id: number; type: "result"; result: unknown }
  | { id: number; type: "error"; message: string };
