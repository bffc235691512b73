// Speed of the WebAssembly module under node: the AIAK examples (as the native `bench`
// target), the long three-type search, best of three runs each, and the 512-search scaling
// series of llama3-70b on H100 (8 to 4096 GPUs in steps of 8) on one thread and on a pool of
// worker threads, one per core, as the page runs it on Web Workers. Prints numbers; asserts
// nothing. Run: cmake --build --preset wasm && node tests/wasm/bench.mjs [--scaling-only]
// [--searches-only] (PARAPLAN_WASM_MODULE=PATH.cjs for another build of the module).
import { availableParallelism } from "node:os";
import {
  Worker,
  isMainThread,
  parentPort,
  workerData,
} from "node:worker_threads";
import { LONG_SEARCH, SEARCHES } from "./scenarios.mjs";
import { loadModule } from "./support.mjs";

// The scaling benchmark's series (bench/scaling.sh runs the same one natively).
const SCALING_REQUEST = JSON.stringify({
  scenario: {
    model: "llama3-70b",
    training: { global_batch_size: 1024, seq_length: 8192 },
    cluster: { gpus: [{ type: "h100", count: 8 }], num_gpus: 8 },
  },
  scaling: { from: 8, to: 4096, step: 8 },
});

if (!isMainThread) {
  // A pool worker: searches the sizes it is sent, one at a time.
  const paraplan = await loadModule();
  parentPort.on("message", (size) => {
    if (size === null) process.exit(0);
    const point = JSON.parse(paraplan.scalingPoint(workerData, size, null));
    parentPort.postMessage(point);
  });
  parentPort.postMessage("ready");
} else {
  const paraplan = await loadModule();
  const scalingOnly = process.argv.includes("--scaling-only");
  console.log("Paraplan WebAssembly benchmarks (node)");
  if (!scalingOnly) {
    const BENCHMARKS = {
      "AIAK example 1: llama2-70b 256 a800":
        SEARCHES["AIAK example 1: a800:256"].scenario,
      "AIAK example 2: a800:128,h800:160":
        SEARCHES["AIAK example 2: a800:128,h800:160 on 256 GPUs"].scenario,
      "llama3.1-405b, a800+h800+h100:512 each": LONG_SEARCH,
    };
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
  }
  if (process.argv.includes("--searches-only")) process.exit(0);

  const sizes = JSON.parse(paraplan.scalingSizes(SCALING_REQUEST));
  let started = performance.now();
  const cpu = process.cpuUsage();
  let feasible = 0;
  for (const size of sizes) {
    const point = JSON.parse(
      paraplan.scalingPoint(SCALING_REQUEST, size, null),
    );
    if (point.best !== null) feasible++;
  }
  const oneThread = (performance.now() - started) / 1000;
  const oneThreadCpu = process.cpuUsage(cpu).user / 1e6;
  console.log(
    `scaling llama3-70b h100 8..4096 step 8 (${sizes.length} searches), 1 thread:  ${oneThread.toFixed(3)} s (${oneThreadCpu.toFixed(3)} s user CPU; ${feasible} sizes with a strategy)`,
  );

  // The page's way: a pool of workers, one per core, each taking the next size when free.
  const threads = Math.min(availableParallelism(), sizes.length);
  const workers = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise((resolve) => {
          const worker = new Worker(new URL(import.meta.url), {
            workerData: SCALING_REQUEST,
          });
          worker.once("message", () => resolve(worker));
        }),
    ),
  );
  started = performance.now();
  let next = 0;
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise((resolve) => {
          const take = () => {
            if (next >= sizes.length) {
              worker.postMessage(null);
              resolve();
              return;
            }
            worker.postMessage(sizes[next++]);
          };
          worker.on("message", take);
          take();
        }),
    ),
  );
  const pool = (performance.now() - started) / 1000;
  console.log(
    `scaling llama3-70b h100 8..4096 step 8 (${sizes.length} searches), ${threads} workers: ${pool.toFixed(3)} s`,
  );
}
