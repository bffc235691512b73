// Shared by the wasm tests: the node build of the module, the native CLI, and a
// comparison of their JSON answers.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// PARAPLAN_WASM_MODULE: another node build of the module (e.g. one linked with other flags).
const MODULE =
  process.env.PARAPLAN_WASM_MODULE ??
  join(ROOT, "build", "wasm", "node", "paraplan.cjs");
const CLI = join(ROOT, "build", "native", "paraplan");

for (const [path, preset] of [
  [MODULE, "wasm"],
  [CLI, "native"],
]) {
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: run cmake --preset ${preset} && cmake --build --preset ${preset}`,
    );
  }
}

// The module, instantiated from the .wasm bytes: Emscripten 3.1.6's node glue would fetch()
// the file by path, which node's fetch does not accept.
export async function loadModule() {
  const createParaplan = createRequire(import.meta.url)(MODULE);
  return createParaplan({
    wasmBinary: readFileSync(MODULE.replace(/\.cjs$/, ".wasm")),
  });
}

// Runs the CLI with `input` on stdin; returns its exit status, stdout and stderr.
export function cli(args, input = "") {
  const run = spawnSync(CLI, args, {
    input,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

export function cliJson(args, input = "") {
  return JSON.parse(
    execFileSync(CLI, args, { input, encoding: "utf8", maxBuffer: 1 << 28 }),
  );
}

export function readJson(...path) {
  return JSON.parse(readFileSync(join(ROOT, ...path), "utf8"));
}

// Differences between two JSON values: numbers may differ by a relative 1e-9,
// everything else (keys, strings, booleans, array lengths and order) must match.
export function differences(actual, expected, path = "$", found = []) {
  if (found.length >= 20) return found;
  if (typeof expected === "number" && typeof actual === "number") {
    const scale = Math.max(Math.abs(actual), Math.abs(expected));
    if (scale > 0 && Math.abs(actual - expected) / scale > 1e-9) {
      found.push(`${path}: ${actual} != ${expected}`);
    }
  } else if (Array.isArray(expected) && Array.isArray(actual)) {
    if (actual.length !== expected.length)
      found.push(`${path}: length ${actual.length} != ${expected.length}`);
    else
      expected.forEach((item, i) =>
        differences(actual[i], item, `${path}[${i}]`, found),
      );
  } else if (
    expected !== null &&
    typeof expected === "object" &&
    actual !== null &&
    typeof actual === "object" &&
    !Array.isArray(actual)
  ) {
    const keys = (value) => Object.keys(value).sort().join(",");
    if (keys(actual) !== keys(expected))
      found.push(`${path}: keys {${keys(actual)}} != {${keys(expected)}}`);
    else
      for (const key of Object.keys(expected))
        differences(actual[key], expected[key], `${path}.${key}`, found);
  } else if (actual !== expected) {
    found.push(
      `${path}: ${JSON.stringify(actual)} != ${JSON.stringify(expected)}`,
    );
  }
  return found;
}

// The one-line message of a call that throws.
export function thrownMessage(call) {
  try {
    call();
  } catch (error) {
    if (!(error instanceof Error))
      throw new Error(`threw a non-Error: ${String(error)}`);
    return error.message;
  }
  throw new Error("did not throw");
}
