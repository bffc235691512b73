// Speed of the WebAssembly module under node: the AIAK examples (as the native `bench`
// target) and the long three-type search, best of three runs each. Prints numbers;
// asserts nothing. Run: cmake --build --preset wasm && node tests/wasm/bench.mjs
import { LONG_SEARCH, SEARCHES } from "./scenarios.mjs";
import { loadModule } from "./support.mjs";

const paraplan = await loadModule();
const BENCHMARKS = {
  "AIAK example 1: llama2-70b 256 a800":
    SEARCHES["AIAK example 1: a800:256"].scenario,
  "AIAK example 2: a800:128,h800:160":
    SEARCHES["AIAK example 2: a800:128,h800:160 on 256 GPUs"].scenario,
  "llama3.1-405b, a800+h800+h100:512 each": LONG_SEARCH,
};

console.log("Paraplan WebAssembly benchmarks (node, single thread)");
for (const [name, scenario] of Object.entries(BENCHMARKS)) {
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
