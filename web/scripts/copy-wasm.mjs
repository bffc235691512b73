// Copies the WebAssembly module built by `cmake --preset wasm` into src/generated/, where the
// worker imports it from. Fails with the command to run when the module has not been built.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(web, "..", "build", "wasm");
const generated = join(web, "src", "generated");
const files = ["paraplan.js", "paraplan.wasm"];

const missing = files.filter((file) => !existsSync(join(built, file)));
if (missing.length > 0) {
  console.error(
    `error: ${missing.map((file) => relative(process.cwd(), join(built, file))).join(", ")} ` +
      "not found. Build the WebAssembly module first, from the repository root:\n" +
      "  cmake --preset wasm && cmake --build --preset wasm\n" +
      "(or run ./scripts/build.sh, which builds everything).",
  );
  process.exit(1);
}
mkdirSync(generated, { recursive: true });
for (const file of files) copyFileSync(join(built, file), join(generated, file));
console.log(`copied ${files.join(" and ")} from ${relative(process.cwd(), built)}`);

// The module's version, presets and schema as JSON beside it (src/generated/info.json), so that
// the page draws its form at once while the worker is still loading the module: asked of the
// node build of the same module, so the two always agree.
const nodeModule = join(built, "node", "paraplan.cjs");
if (!existsSync(nodeModule)) {
  console.error(`error: ${relative(process.cwd(), nodeModule)} not found; build the wasm preset.`);
  process.exit(1);
}
const createParaplan = createRequire(import.meta.url)(nodeModule);
const module = await createParaplan({
  wasmBinary: readFileSync(nodeModule.replace(/\.cjs$/, ".wasm")),
});
const info = {
  version: module.version(),
  presets: JSON.parse(module.presets()),
  schema: JSON.parse(module.schema()),
};
writeFileSync(join(generated, "info.json"), JSON.stringify(info));
console.log(`wrote src/generated/info.json (module ${info.version})`);
