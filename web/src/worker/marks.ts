// Named points of the page's start-up (User Timing marks, "paraplan:<name>"), in the page and in
// the worker, so that a browser test or a profile can tell where the time to the first row goes:
// performance.getEntriesByType("mark") lists them in ms since each context's timeOrigin.
export type StartupMark =
  | "entry" // main.ts began to run
  | "worker-created" // the page created the worker
  | "module-compiled" // the page compiled the WebAssembly module (worker/compiled.ts)
  | "module-received" // the worker has the page's compiled module (or null: it fetches its own)
  | "app-loaded" // the page's main chunk was imported
  | "results-drawn" // the results' frame (tabs, status, tables) is in the document
  | "form-drawn" // the job form is in the document (after a run=1 link's first rows)
  | "search-requested" // the page posted the first search
  | "worker-start" // the worker's script began to run
  | "module-ready" // the WebAssembly module was compiled and instantiated
  | "module-warm" // the module parsed its built-in presets (wasm/bindings.cpp warm())
  | "warm-up-start" // the module is ready: the worker's warm-up may begin (worker/warm-up.ts)
  | "warm-up-end" // the warm-up ran at least one of its searches (none where a request waited)
  | "search-received" // the worker received its first search request
  | "search-start" // the worker began the search (the module's call)
  | "search-first-report" // the search's first progress report
  | "search-first-rows" // its first report that carries rows (the best so far)
  | "progress-received" // the page has the worker's first progress message
  | "search-end" // the search returned
  | "provisional-received" // the page has the first best rows so far (before drawing them)
  | "provisional-drawn" // the page drew them (in the document; painted at the next frame)
  | "first-rows-drawn"; // the first rows of either kind (provisional or final) are in the document

// Marks the point once per context (a later call with the same name is ignored).
export function mark(name: StartupMark): void {
  const full = `paraplan:${name}`;
  if (typeof performance === "undefined" || typeof performance.mark !== "function") return;
  if (performance.getEntriesByName(full, "mark").length > 0) return;
  performance.mark(full);
}
