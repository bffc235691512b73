// The searches the page runs, without the page: the last search and its result, whether a
// call is under way, and how the last one ended. Listeners hear of every change; nothing
// here touches the DOM.
import type {
  RankedStrategy,
  Report,
  ScalingPointResult,
  Scenario,
  SearchProgress,
  SearchRequest,
  SearchResult,
  SweepGrid,
  SweepPointResult,
  TableRow,
  TraceResult,
} from "../paraplan/types";
import { CancelledError } from "../worker/errors";
import type { Client } from "../worker/client";
import { mark } from "../worker/marks";
import { runOnPool } from "../worker/pool";
import type { Progress } from "../worker/protocol";
import { defaultGpusPerNode, type Catalogue } from "./catalogue";
import type { Built, FieldError } from "./checker";
import type { EarlySearch } from "./early-search";
import { placeModuleError, type PlacedError } from "./module-errors";
import type { ModuleSchema } from "./module-schema";
import type { PageState } from "./page-state";
import { buildScalingRequest } from "./scaling";
import { buildSweepRequest } from "./sweep";
import { buildSearchRequest } from "./scenario";
import { scenarioOfStrategy } from "./strategy-scenario";

export interface Run {
  request: SearchRequest;
  result: SearchResult;
}

// The ranking so far of the search under way (its latest rows), and its latest report.
export interface Provisional {
  rows: TableRow[];
  progress: SearchProgress;
}

export type Outcome =
  | { status: "invalid"; errors: FieldError[] } // nothing ran: the input has mistakes
  | { status: "busy" } // nothing ran: another call is under way
  | { status: "done" | "cancelled" | "failed" };

export interface ScalingListeners {
  onStart?: (counts: number[]) => void;
  onPoint?: (index: number, point: ScalingPointResult) => void;
}

export interface SweepListeners {
  onStart?: (grid: SweepGrid) => void;
  onPoint?: (index: number, point: SweepPointResult) => void;
}

// The counts the page states about a result, all taken from the strategies it lists.
export interface RunSummary {
  listed: number;
  feasible: number; // listed and feasible
  infeasible: number; // listed but infeasible (a search should not rank them)
  feasibleFound: number; // feasible strategies the search found, never fewer than it lists
}

export function summarise(result: SearchResult): RunSummary {
  const listed = result.strategies.length;
  const feasible = result.strategies.filter((ranked) => ranked.estimate.feasible).length;
  return {
    listed,
    feasible,
    infeasible: listed - feasible,
    feasibleFound: Math.max(result.stats.feasible, feasible),
  };
}

// Whether the job differs: anything but the language, the view, the table's order and the
// open strategy.
export function jobChanged(state: PageState, previous: PageState): boolean {
  const job = (s: PageState) =>
    JSON.stringify({
      ...s,
      lang: "",
      view: "",
      sort: "",
      selected: "",
      ran: false,
      compare: "",
      group: false,
      estimate: false,
      trainTokens: "",
      gpuHourPrice: "",
    });
  return job(state) !== job(previous);
}

export class Runs {
  last: Run | null = null;
  busy = false;
  cancelled = false; // the last search was cancelled
  provisional: Provisional | null = null; // while a search runs and has reported rows
  moduleError: PlacedError | null = null; // the module refused the last call
  private readonly listeners: (() => void)[] = [];

  // `pool`: the workers that share the points of a series (the page: one per core).
  // `early`: a search main.ts started on `client` before the page was drawn; the first search
  // of the same request takes it over.
  constructor(
    private readonly client: Client,
    private readonly catalogue: Catalogue,
    private readonly schema: ModuleSchema,
    private readonly pool: readonly Client[] = [client],
    private early: EarlySearch | null = null,
  ) {}

  subscribe(listener: () => void): void {
    this.listeners.push(listener);
  }

  // The search request of the page's state, or what is wrong with it.
  request(state: PageState): Built<SearchRequest> {
    return buildSearchRequest(state, this.catalogue, this.schema);
  }

  // Whether the inputs have changed since the last search.
  isStale(state: PageState): boolean {
    if (this.last === null) return false;
    const current = this.request(state);
    return !current.ok || JSON.stringify(current.value) !== JSON.stringify(this.last.request);
  }

  clearModuleError(): void {
    if (this.moduleError === null) return;
    this.moduleError = null;
    this.notify();
  }

  cancel(): void {
    this.client.cancel();
    for (const worker of this.pool) if (worker !== this.client) worker.cancel();
  }

  async search(state: PageState, onProgress?: (progress: Progress) => void): Promise<Outcome> {
    if (this.busy) return { status: "busy" };
    const request = this.request(state);
    if (!request.ok) return this.refuse(request.errors);
    this.cancelled = false;
    const outcome = await this.running(async () => {
      try {
        const listener = (update: Progress) => {
          this.provisionalFrom(update.search);
          onProgress?.(update);
        };
        const result = await this.startSearch(request.value, listener);
        this.last = { request: request.value, result };
      } finally {
        this.provisional = null;
      }
    });
    if (outcome.status === "cancelled") {
      this.cancelled = true;
      this.notify();
    }
    return outcome;
  }

  // The early search where it searched this request (it is offered once), else a new one.
  private startSearch(
    request: SearchRequest,
    onProgress: (progress: Progress) => void,
  ): Promise<SearchResult> {
    const early = this.early?.takeOver(request, onProgress);
    this.early = null;
    if (early) return early;
    mark("search-requested");
    return this.client.call("search", request, { onProgress });
  }

  // A report's rows replace the ranking so far; a report without rows updates its progress.
  private provisionalFrom(progress: SearchProgress): void {
    if (progress.rows !== undefined && progress.rows.length > 0) {
      this.provisional = { rows: progress.rows, progress };
    } else if (this.provisional !== null) {
      this.provisional = { ...this.provisional, progress };
    }
  }

  // A search at each cluster size of the scaling view, spread over the pool; each point is
  // handed on as it finishes.
  async scaling(state: PageState, listeners: ScalingListeners = {}): Promise<Outcome> {
    if (this.busy) return { status: "busy" };
    const built = buildScalingRequest(state, this.catalogue, this.schema);
    if (!built.ok) return this.refuse(built.errors);
    const request = built.value;
    return this.running(async () => {
      const sizes = await this.client.call("scalingSizes", request);
      listeners.onStart?.(sizes);
      await runOnPool(
        this.pool,
        sizes.length,
        (worker, index) => worker.call("scalingPoint", { request, numGpus: sizes[index] }),
        (index, point) => listeners.onPoint?.(index, point),
      );
    });
  }

  // A search at each point of the hardware sweep, spread over the pool.
  async sweep(state: PageState, listeners: SweepListeners = {}): Promise<Outcome> {
    if (this.busy) return { status: "busy" };
    const built = buildSweepRequest(state, this.catalogue, this.schema);
    if (!built.ok) return this.refuse(built.errors);
    const request = built.value;
    return this.running(async () => {
      const grid = await this.client.call("sweepGrid", request);
      listeners.onStart?.(grid);
      await runOnPool(
        this.pool,
        grid.points.length,
        (worker, index) => worker.call("sweepPoint", { request, index }),
        (index, point) => listeners.onPoint?.(index, point),
      );
    });
  }

  // The report and simulated schedule of a strategy of the last search. A failure other
  // than cancelling becomes the module error; the promise rejects either way.
  trace(ranked: RankedStrategy): Promise<TraceResult> {
    if (this.last === null) return Promise.reject(new Error("no search has run"));
    const traced = this.client.call(
      "trace",
      scenarioOfStrategy(this.last.request.scenario, ranked),
    );
    traced.catch((error: unknown) => {
      if (!(error instanceof CancelledError)) this.fail(error);
    });
    return traced;
  }

  // The report of a scenario with a strategy (estimate mode, sensitivities); rejects with the
  // module's error, and leaves the page's module error alone.
  estimate(scenario: Scenario): Promise<Report> {
    return this.client.call("estimate", scenario);
  }

  // GPUs per node of a scenario: its own, else the core's default for its GPU types.
  gpusPerNode(scenario: Scenario): number {
    if (scenario.cluster.gpus_per_node !== undefined) return scenario.cluster.gpus_per_node;
    // A GPU of the user's own hosts as its base preset does.
    const gpus = scenario.cluster.gpus.map(({ type }) =>
      this.catalogue.gpu(typeof type === "string" ? type : String(type.base ?? type.id)),
    );
    return defaultGpusPerNode(gpus) ?? 8;
  }

  private refuse(errors: FieldError[]): Outcome {
    this.moduleError = null;
    this.notify();
    return { status: "invalid", errors };
  }

  private async running(call: () => Promise<void>): Promise<Outcome> {
    this.busy = true;
    this.moduleError = null;
    this.notify();
    try {
      await call();
      return { status: "done" };
    } catch (error) {
      if (error instanceof CancelledError) return { status: "cancelled" };
      this.fail(error);
      return { status: "failed" };
    } finally {
      this.busy = false;
      this.notify();
    }
  }

  private fail(error: unknown): void {
    const fields = error instanceof Error ? error : { message: String(error) };
    this.moduleError = placeModuleError(fields, this.schema);
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
