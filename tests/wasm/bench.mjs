// Speed of the WebAssembly module under node: the same searches as the native `bench`
// target, best of three runs each. Prints numbers; asserts nothing.
// Run: cmake --build --preset wasm && node tests/wasm/bench.mjs
import { loadModule } from "./support.mjs";

const paraplan = await loadModule();
const job = (model, gpus, batch, seq, numGpus) => ({
  model,
  training: { global_batch_size: batch, seq_length: seq },
  cluster: { gpus, ...(numGpus && { num_gpus: numGpus }) },
});
const SEARCHES = {
  "AIAK example 1: llama2-70b 256 a800": job(
    "llama2-70b",
    [{ type: "a800", count: 256 }],
    512,
    4096,
  ),
  "AIAK example 2: a800:128,h800:160": job(
    "llama2-70b",
    [
      { type: "a800", count: 128 },
      { type: "h800", count: 160 },
    ],
    512,
    4096,
    256,
  ),
  "llama3.1-405b, a800+h800+h100:512 each": job(
    "llama3.1-405b",
    [
      { type: "a800", count: 512 },
      { type: "h800", count: 512 },
      { type: "h100", count: 512 },
    ],
    2048,
    8192,
  ),
};

console.log("Paraplan WebAssembly benchmarks (node, single thread)");
for (const [name, scenario] of Object.entries(SEARCHES)) {
  const request = JSON.stringify({ scenario, options: { top: 10 } });
  let best = Infinity;
  let stats;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    stats = JSON.parse(paraplan.search(request, null)).stats;
    best = Math.min(best, (performance.now() - started) / 1000);
  }
  console.log(
    `search ${name.padEnd(42)} ${best.toFixed(3)} s  space ${stats.space}  evaluated ${stats.evaluated}`,
  );
}
