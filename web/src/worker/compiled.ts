// The WebAssembly module, fetched and compiled once on the page's side as soon as the page
// starts (main.ts creates the first worker at once): every worker, the search's and the pool's,
// receives it with its first message and only instantiates it. The fetch and the compile thus
// run while the worker's own script loads, and no worker compiles a copy of its own.
import wasmUrl from "../generated/paraplan.wasm?url";
import { mark } from "./marks";

let compiled: Promise<WebAssembly.Module | null> | undefined;

// The module, or null where this browser or server does not let the page compile it (the
// worker then fetches it itself, as before).
export function compiledModule(): Promise<WebAssembly.Module | null> {
  compiled ??= compile().then(
    (module) => {
      mark("module-compiled");
      return module;
    },
    () => null,
  );
  return compiled;
}

async function compile(): Promise<WebAssembly.Module> {
  if (typeof WebAssembly.compileStreaming === "function") {
    try {
      return await WebAssembly.compileStreaming(fetch(wasmUrl, { credentials: "same-origin" }));
    } catch {
      // A server that sends another MIME type than application/wasm: compile the bytes.
    }
  }
  const response = await fetch(wasmUrl, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`${wasmUrl}: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}
