// The module's version, presets and schema without waiting for the module: the build writes
// them beside it (scripts/copy-wasm.mjs asks the node build of the same module), so the form can
// be drawn at once. Without that file (an old build), the worker is asked. The page starts the
// worker itself (main.ts: "load"), so that nothing is asked of the worker twice.
import type { Client } from "./client";
import type { ModuleInfo } from "./protocol";

const bundled = import.meta.glob<ModuleInfo>("../generated/info.json", {
  eager: true,
  import: "default",
});

// The module's info as the build wrote it beside the module, if it did.
export function bundledModuleInfo(): ModuleInfo | undefined {
  return Object.values(bundled)[0];
}

export async function moduleInfo(client: Client): Promise<ModuleInfo> {
  const info = bundledModuleInfo();
  if (info !== undefined) return info;
  return client.call("info", null);
}
