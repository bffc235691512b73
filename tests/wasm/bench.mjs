// Speed of the WebAssembly module under node: the native `bench` target's searches (by the same
// names, for the wasm/native ratio of issue 34 item 2), best of three runs each, and the
// 512-search scaling series of llama3-70b on H100 (8 to 4096 GPUs in steps of 8) on one thread
// and on a pool of worker threads, one per core, as the page runs it on Web Workers. Prints
// numbers; asserts nothing. Run: cmake --build --preset wasm && node tests/wasm/bench.mjs
// [--scaling-only] [--searches-only] [--first-rows[=N]] (PARAPLAN_BENCH_ONLY=TEXT: the searches
// whose name holds it; PARAPLAN_WASM_MODULE=PATH.cjs for another build of the module).
import { availableParallelism } from "node:os";
import {
  Worker,
  isMainThread,
  parentPort,
  workerData,
} from "node:worker_threads";
import { LONG_SEARCH, SEARCHES } from "./scenarios.mjs";
import { loadModule } from "./support.mjs";

// A job of the native bench (bench/bench.cpp's Job): the scenario it searches.
function benchJob(model, gpus, batch, seq, framework = "megatron") {
  const numGpus = gpus.reduce((sum, pool) => sum + pool.count, 0);
  return {
    model,
    framework,
    training: { global_batch_size: batch, seq_length: seq },
    cluster: { gpus, num_gpus: numGpus },
  };
}

// The page's default job for `model` on `numGpus` A800 with the batch scaled with them (2
// sequences per GPU), as bench/bench.cpp's first_rows_request writes it.
function firstRowsRequest(model, numGpus) {
  return JSON.stringify({
    scenario: {
      model,
      training: {
        global_batch_size: 2 * numGpus,
        seq_length: 4096,
        precision: "bf16",
      },
      cluster: { gpus: [{ type: "a800", count: numGpus }], num_gpus: numGpus },
    },
    options: { top: 10, time_budget_s: 30 },
  });
}

// The process's CPU seconds so far (user and system, every thread: V8 compiles the module's
// functions on background threads too).
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

// --first-rows[=N]: for every preset model on the page's default job (on N A800, 256 unless
// given), the time from the request's text to the first progress report with rows (cancelled
// there), as the page's worker runs it; the minimum of three, in wall and CPU seconds, and the
// first run of the first model apart (it pays V8's lazy compilation of the functions it calls,
// as a link that runs a search at once does in the page). PARAPLAN_BENCH_FIRST_ROWS=N
// build/native/bench/paraplan_bench prints the same natively.
function firstRows(paraplan, numGpus) {
  const models = JSON.parse(paraplan.presets()).models.map((m) => m.id);
  console.log(
    `first rows on ${numGpus} a800 (batch ${2 * numGpus}, 4096 tokens; minimum of 3 runs)`,
  );
  let cold = true;
  for (const model of models.sort()) {
    const request = firstRowsRequest(model, numGpus);
    let rowsS = Infinity;
    let rowsCpuS = Infinity;
    let searchS = Infinity;
    let evaluated = 0;
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      const startedCpu = cpuSeconds();
      let first = 0;
      let firstCpu = 0;
      paraplan.search(request, (progress) => {
        if (progress.rows === undefined) return true;
        first = (performance.now() - started) / 1000;
        firstCpu = cpuSeconds() - startedCpu;
        searchS = Math.min(searchS, progress.elapsed_s);
        evaluated = progress.evaluated;
        return false;
      });
      if (cold && first > 0) {
        console.log(
          `first rows ${model} in a fresh module (its first search): ${first.toFixed(4)} s wall ${firstCpu.toFixed(4)} s CPU`,
        );
      }
      cold = false;
      if (first > 0) rowsS = Math.min(rowsS, first);
      if (first > 0) rowsCpuS = Math.min(rowsCpuS, firstCpu);
    }
    const name = model.padEnd(35);
    console.log(
      rowsS === Infinity
        ? `first rows ${name}        - (no report with rows: the search ended first)`
        : `first rows ${name} ${rowsS.toFixed(4).padStart(8)} s wall ${rowsCpuS.toFixed(4).padStart(8)} s CPU (search clock at the report ${searchS.toFixed(4)} s, ${evaluated} evaluated)`,
    );
  }
}

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
  const firstRowsFlag = process.argv.find((arg) =>
    /^--first-rows(=\d+)?$/.test(arg),
  );
  if (firstRowsFlag !== undefined) {
    firstRows(paraplan, Number(firstRowsFlag.split("=")[1] ?? 256));
    process.exit(0);
  }
  if (!scalingOnly) {
    // The native `bench` target's jobs (bench/bench.cpp), by the same names: "search" is the
    // search's own clock (stats.seconds, as bench's in-process line), "call" the whole call
    // (request parsed, result written as JSON).
    const BENCHMARKS = {
      "AIAK example 1: llama2-70b 256 a800":
        SEARCHES["AIAK example 1: a800:256"].scenario,
      "AIAK example 2: a800:128,h800:160":
        SEARCHES["AIAK example 2: a800:128,h800:160 on 256 GPUs"].scenario,
      "GPT-3 175B on 512 A100 (gpt3-175b, GBS 1536)": benchJob(
        "gpt3-175b",
        [{ type: "a100", count: 512 }],
        1536,
        2048,
      ),
      "llama3.1-405b, a800+h800+h100:512 each": LONG_SEARCH,
      "DeepSeek-V3 on 1024 H100 (MoE, MLA, GBS 8192)": benchJob(
        "deepseek-v3",
        [{ type: "h100", count: 1024 }],
        8192,
        4096,
      ),
      "DeepSeek-V3 on 256 H100, torchtitan (GBS 1024)": benchJob(
        "deepseek-v3",
        [{ type: "h100", count: 256 }],
        1024,
        4096,
        "torchtitan",
      ),
    };
    const only = process.env.PARAPLAN_BENCH_ONLY;
    for (const [name, scenario] of Object.entries(BENCHMARKS)) {
      if (only !== undefined && !name.includes(only)) continue;
      const request = JSON.stringify({
        scenario,
        options: { top: 10, time_budget_s: 600 },
      });
      let best = Infinity;
      let searchS = Infinity;
      let cpuS = Infinity;
      let stats;
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        const cpu = process.cpuUsage();
        stats = JSON.parse(paraplan.search(request, null)).stats;
        const used = process.cpuUsage(cpu);
        best = Math.min(best, (performance.now() - started) / 1000);
        searchS = Math.min(searchS, stats.seconds);
        cpuS = Math.min(cpuS, (used.user + used.system) / 1e6);
      }
      // CPU: the process's, the call's (all threads: V8's background compiles included), as the
      // native bench's "CPU" on a shared machine where the wall time includes waiting for a core.
      console.log(
        `search ${name.padEnd(46)} search ${searchS.toFixed(4)} s wall  call ${best.toFixed(4)} s wall ${cpuS.toFixed(4)} s CPU  space ${stats.space}  evaluated ${stats.evaluated}`,
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
