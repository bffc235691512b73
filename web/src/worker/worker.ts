// The one Web Worker that runs the WebAssembly module, so that the page never
// blocks. It answers the requests of protocol.ts in order.
import createParaplan from "../generated/paraplan.js";
import wasmUrl from "../generated/paraplan.wasm?url";
import type { ParaplanModule } from "../paraplan/module";
import type { SearchProgress, SearchRequest, SearchResult } from "../paraplan/types";
import { errorFields } from "./errors";
import { mark } from "./marks";
import { warmUp } from "./warm-up";
import type { Methods, Method, ModuleMessage, Request, Response } from "./protocol";

mark("worker-start");
// The WebAssembly module the page compiled (its first message), or null: fetch it here.
let receiveModule: (module: WebAssembly.Module | null) => void = () => undefined;
const fromPage = new Promise<WebAssembly.Module | null>((resolve) => (receiveModule = resolve));

async function instantiate(imports: WebAssembly.Imports): Promise<WebAssembly.Instance> {
  const compiled = await fromPage;
  mark("module-received");
  if (compiled !== null) return WebAssembly.instantiate(compiled, imports);
  // The page could not compile it (whatever the server's MIME type): the bytes, compiled here.
  const response = await fetch(wasmUrl, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`the calculator's module: HTTP ${response.status}`);
  return (await WebAssembly.instantiate(await response.arrayBuffer(), imports)).instance;
}

// The module, loaded at once and with its presets parsed before any request is answered; a
// failure to load it is every request's answer.
let failed: (error: unknown) => void = () => undefined;
const failure = new Promise<never>((_, reject) => (failed = reject));
const paraplan = Promise.race([
  failure,
  createParaplan({
    locateFile: () => wasmUrl,
    instantiateWasm: (
      imports: WebAssembly.Imports,
      done: (instance: WebAssembly.Instance) => void,
    ) => {
      instantiate(imports).then(done, failed);
      return {};
    },
  }),
]).then((module: ParaplanModule) => {
  mark("module-ready");
  module.warm?.();
  mark("module-warm");
  return module;
});

function post(response: Response): void {
  self.postMessage(response);
}

function search(
  module: ParaplanModule,
  request: SearchRequest,
  onProgress: (progress: SearchProgress) => void,
): SearchResult {
  mark("search-start");
  const text = module.search(JSON.stringify(request), (progress) => {
    mark("search-first-report");
    if (progress.rows !== undefined) mark("search-first-rows");
    onProgress(progress);
    return true;
  });
  mark("search-end");
  return JSON.parse(text);
}

// A function of newer modules, bound to the module.
function required<F extends (...args: never[]) => string>(method: F | undefined): F {
  if (method === undefined) throw new Error("this build of the calculator has no such function");
  return method;
}

function handle(module: ParaplanModule, request: Request): Methods[Method]["result"] {
  const progress = (step: number, steps: number) => (search: SearchProgress) =>
    post({ id: request.id, type: "progress", progress: { step, steps, search } });
  switch (request.method) {
    case "load":
      return module.version();
    case "info":
      return {
        version: module.version(),
        presets: JSON.parse(module.presets()),
        schema: JSON.parse(module.schema()),
      };
    case "search":
      return search(module, request.params, progress(0, 1));
    case "searchSeries": {
      const requests = request.params;
      return requests.map((searchRequest, index) => {
        const result = search(module, searchRequest, progress(index, requests.length));
        post({ id: request.id, type: "partial", index, result });
        return result;
      });
    }
    case "scalingSizes":
      return JSON.parse(required(module.scalingSizes)(JSON.stringify(request.params)));
    case "scalingPoint": {
      const { request: series, numGpus } = request.params;
      return JSON.parse(
        required(module.scalingPoint)(JSON.stringify(series), numGpus, (search) => {
          post({ id: request.id, type: "progress", progress: { step: 0, steps: 1, search } });
          return true;
        }),
      );
    }
    case "sweepGrid":
      return JSON.parse(required(module.sweepGrid)(JSON.stringify(request.params)));
    case "sweepPoint": {
      const { request: sweep, index } = request.params;
      return JSON.parse(required(module.sweepPoint)(JSON.stringify(sweep), index));
    }
    case "trace":
      return JSON.parse(module.trace(JSON.stringify(request.params)));
    case "importHfConfig":
      return JSON.parse(module.importHfConfig(request.params));
    case "parameterCounts":
      return JSON.parse(module.parameterCounts(JSON.stringify(request.params)));
    case "estimate":
      return JSON.parse(module.estimate(JSON.stringify(request.params)));
  }
}

// Requests received and not yet answered, and whether any asked the module for more than its
// version or catalogue or said that a search follows: the warm-up runs only while none waits and
// none has run or is on its way (a search compiles its code itself).
let unanswered = 0;
let worked = false;

function asksForWork(request: Request): boolean {
  if (request.method === "load") return request.params.searchFollows;
  return request.method !== "info";
}

self.onmessage = async (event: MessageEvent<Request | ModuleMessage>) => {
  if ("wasmModule" in event.data) {
    receiveModule(event.data.wasmModule);
    return;
  }
  const { id } = event.data;
  if (event.data.method === "search") mark("search-received");
  unanswered++;
  worked ||= asksForWork(event.data);
  try {
    const module = await paraplan;
    post({ id, type: "result", result: handle(module, event.data) });
  } catch (error) {
    post({ id, type: "error", ...errorFields(error) });
  } finally {
    unanswered--;
  }
};

// Once the module is ready and while nothing is asked of it: compile the search's code
// (warm-up.ts), so that the user's first search does not pay for it.
paraplan.then(
  async (module) => {
    mark("warm-up-start");
    if ((await warmUp(module, () => unanswered > 0 || worked)) > 0) mark("warm-up-end");
  },
  () => undefined,
);
