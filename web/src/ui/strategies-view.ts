// The strategies tab: the status line, the ranked table, and the details of the strategy the
// state's `selected` names, with its simulated schedule from the module.
import type { RankedStrategy } from "../paraplan/types";
import type { Runs } from "../state/runs";
import type { Store } from "../state/store";
import { CancelledError } from "../worker/errors";
import { DetailView } from "./detail-view";
import { h } from "./dom";
import { setPreferredFramework } from "./launch-view";
import { ResultsTable } from "./results-table";
import { StatusView } from "./status-view";

export class StrategiesView {
  readonly element: HTMLElement;
  private readonly status = new StatusView();
  private readonly table: ResultsTable;
  private readonly detail: DetailView;

  // `onTraceError` runs when the module refuses to trace a strategy.
  constructor(
    private readonly store: Store,
    private readonly runs: Runs,
    private readonly onTraceError: () => void,
  ) {
    this.table = new ResultsTable(store);
    this.detail = new DetailView(() => store.update((state) => (state.selected = "")));
    this.element = h(
      "div",
      { class: "view-strategies" },
      this.status.element,
      this.table.element,
      this.detail.element,
    );
    store.subscribe((state, previous) => {
      if (state.lang !== previous.lang) this.detail.render();
      if (state.selected !== previous.selected) this.showSelected();
    });
  }

  // The last search's strategies, with none open.
  showResults(): void {
    this.table.show(this.runs.last?.result.strategies ?? []);
    this.detail.hide();
  }

  renderStatus(): void {
    const { last, cancelled } = this.runs;
    this.status.render({ run: last, cancelled, stale: this.runs.isStale(this.store.get()) });
  }

  showSelected(): void {
    const rank = this.store.get().selected;
    const ranked = this.runs.last?.result.strategies.find((r) => String(r.rank) === rank);
    if (ranked === undefined) return this.detail.hide();
    setPreferredFramework(this.runs.last?.request.scenario.framework ?? "megatron");
    if (this.detail.rank !== ranked.rank)
      this.detail.show(ranked, ranked.estimate.feasible ? this.trace(ranked) : null);
  }

  private trace(ranked: RankedStrategy) {
    const traced = this.runs.trace(ranked);
    traced.catch((error: unknown) => {
      if (!(error instanceof CancelledError)) this.onTraceError();
    });
    return traced;
  }
}
