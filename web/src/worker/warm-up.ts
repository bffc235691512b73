// The worker's warm-up (issue 30 item 8): V8 compiles a WebAssembly function lazily, on its
// first call (Liftoff), so a fresh worker's first search pays the compilation of every function
// it touches: about 150 ms of CPU of the first rows of the page's default job (node 20, the
// module of this build: first search 174 ms of CPU to its first rows, the same search again
// 27 ms). While the user reads the form nothing runs in the worker, so it runs two small
// searches then, each stopped at its first rows: the page's default job (a dense model) and the
// same job with a MoE model, which between them touch the parsing, the walk, the estimate of a
// leaf, the progress report and the result's JSON. A request that is already waiting is never
// delayed: the warm-up starts only while the worker has nothing to answer, and looks again
// before each search (a request that arrives during one waits for that search alone, whose
// compilation it would have paid itself); where the page said a search follows (a link with
// run=1, protocol.ts "load"), none starts.
import type { ParaplanModule } from "../paraplan/module";
import type { SearchProgress, SearchRequest } from "../paraplan/types";
import { parseGpuInfos } from "../state/gpu-infos";
import { defaultState } from "../state/page-state";

// The page's default job (state/page-state.ts defaultState) with `model`; a one-second budget
// bounds it on any machine.
function warmUpRequest(model: string): SearchRequest {
  const job = defaultState();
  const gpus = parseGpuInfos(job.cluster).map(({ type, cap }) => ({ type, count: Number(cap) }));
  return {
    scenario: {
      model,
      training: {
        global_batch_size: Number(job.globalBatchSize),
        seq_length: Number(job.seqLength),
        precision: job.precision,
      },
      cluster: { gpus, num_gpus: Number(job.numGpus) },
    },
    options: { top: Number(job.top), time_budget_s: 1, tp_across_nodes: job.tpAcrossNodes },
  };
}

// The page's default model (dense), then a MoE model of the catalogue (its experts' code).
export const WARM_UP_MODELS = [defaultState().model, "qwen3-30b-a3b"] as const;

// Yields to the worker's event loop, so that a request that has arrived is counted first.
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

// Runs the warm-up searches while `busy()` says no request is waiting; each search stops at its
// first report with rows. Resolves with the number of searches run.
export async function warmUp(module: ParaplanModule, busy: () => boolean): Promise<number> {
  let ran = 0;
  for (const model of WARM_UP_MODELS) {
    await nextTask();
    if (busy()) break;
    try {
      module.search(
        JSON.stringify(warmUpRequest(model)),
        (progress: SearchProgress) => progress.rows === undefined,
      );
    } catch {
      // A warm-up that fails only leaves the first search to compile its own code.
    }
    ran++;
  }
  return ran;
}
