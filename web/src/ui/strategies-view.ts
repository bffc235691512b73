// The strategies tab: the status line, the ranked table, and the details of the strategy the
// state's `selected` names, with its simulated schedule from the module.
import { t } from "../i18n/i18n";
import type { RankedStrategy, TableRow } from "../paraplan/types";
import type { Runs } from "../state/runs";
import type { Store } from "../state/store";
import { CancelledError } from "../worker/errors";
import { groupNearDuplicates } from "../state/grouping";
import { CompareView } from "./compare-view";
import { DecisionView } from "./decision-view";
import { DetailView } from "./detail-view";
import { h } from "./dom";
import { EstimateView } from "./estimate-view";
import { setPreferredFramework } from "./launch-view";
import { ParetoView } from "./pareto-view";
import { mark } from "../worker/marks";
import { validationView } from "./validation-view";
import { ResultsTable } from "./results-table";
import { StatusView } from "./status-view";

export class StrategiesView {
  readonly element: HTMLElement;
  private readonly status = new StatusView();
  private readonly table: ResultsTable;
  // The best rows so far while a search runs, in the table's place.
  private readonly provisionalTable: ResultsTable;
  private provisionalRows: TableRow[] | null = null;
  // One polite announcement when the rows so far appear and one when the exact ranking
  // replaces them, not one per progress report.
  private readonly announcer = h("p", {
    class: "visually-hidden",
    testid: "provisional-status",
    attrs: { "aria-live": "polite", role: "status" },
  });
  private readonly detail: DetailView;
  private readonly decision: DecisionView;
  private readonly compare: CompareView;
  private readonly pareto: ParetoView;
  readonly estimate: EstimateView;
  private readonly groupToggle = h("input", { attrs: { type: "checkbox" } });

  // `onTraceError` runs when the module refuses to trace a strategy.
  constructor(
    private readonly store: Store,
    private readonly runs: Runs,
    private readonly onTraceError: () => void,
  ) {
    this.table = new ResultsTable(store);
    this.provisionalTable = new ResultsTable(store, true);
    this.detail = new DetailView(() => store.update((state) => (state.selected = "")));
    const select = (rank: number) => store.update((state) => (state.selected = String(rank)));
    this.decision = new DecisionView(store, runs, select);
    this.compare = new CompareView(store, select);
    this.pareto = new ParetoView(store, select);
    this.estimate = new EstimateView(store, runs, onTraceError);
    this.groupToggle.checked = store.get().group;
    this.groupToggle.addEventListener("change", () =>
      store.update((state) => (state.group = this.groupToggle.checked)),
    );
    const groupLabel = h(
      "label",
      { class: "checkbox group-toggle", testid: "group-toggle" },
      this.groupToggle,
      h("span", { i18n: "group.toggle" }),
    );
    this.element = h(
      "div",
      { class: "view-strategies" },
      h("div", { class: "actions estimate-actions" }, this.estimate.button, groupLabel),
      this.estimate.element,
      this.status.element,
      this.announcer,
      this.pareto.element,
      this.provisionalTable.element,
      this.table.element,
      this.compare.element,
      this.detail.element,
      this.decision.element,
      validationView(store),
    );
    store.subscribe((state, previous) => {
      if (state.lang !== previous.lang) this.detail.render();
      if (state.group !== previous.group) this.showTable();
      if (state.selected !== previous.selected) {
        this.showSelected();
        this.focusDetail();
      }
    });
  }

  // The best rows so far of the search under way, where they changed, in the table's place.
  showProvisional(): void {
    const provisional = this.runs.provisional;
    if (provisional === null) return;
    this.renderStatus();
    if (provisional.rows === this.provisionalRows) return;
    if (this.provisionalRows === null) this.announcer.textContent = t("search.provisionalShown");
    this.provisionalRows = provisional.rows;
    mark("provisional-received");
    this.provisionalTable.show(provisional.rows);
    this.table.hold(true);
    mark("provisional-drawn");
  }

  // The search ended: the table comes back in the provisional table's place (the exact
  // ranking where it finished, the last one where it was cancelled or failed).
  endProvisional(finished: boolean): void {
    if (this.provisionalRows === null) return;
    this.provisionalRows = null;
    this.announcer.textContent = finished ? t("search.provisionalFinal") : "";
    this.provisionalTable.show([]);
    this.table.hold(false);
  }

  // The last search's strategies, with none open.
  showResults(): void {
    const strategies = this.runs.last?.result.strategies ?? [];
    this.endProvisional(true);
    this.showTable();
    this.pareto.show(strategies);
    this.compare.show(strategies);
    this.detail.hide();
    this.decision.hide();
  }

  // The table, with near-duplicates folded under the best of them when the state asks.
  private showTable(): void {
    const strategies = this.runs.last?.result.strategies ?? [];
    this.groupToggle.checked = this.store.get().group;
    if (!this.store.get().group) return this.table.show(strategies);
    const groups = groupNearDuplicates(strategies);
    const variants = new Map(groups.map((group) => [group.best.rank, group.variants.length]));
    this.table.show(
      groups.map((group) => group.best),
      variants,
    );
  }

  // After a strategy opens, the focus goes to its details (keyboard and screen-reader users).
  private focusDetail(): void {
    const heading = this.detail.element.querySelector<HTMLElement>("h2");
    if (heading === null || this.detail.element.hidden) return;
    heading.tabIndex = -1;
    heading.focus({ preventScroll: false });
  }

  renderStatus(): void {
    const { last, cancelled, provisional } = this.runs;
    this.status.render({
      run: last,
      cancelled,
      stale: this.runs.isStale(this.store.get()),
      provisional: provisional?.progress,
    });
  }

  showSelected(): void {
    const rank = this.store.get().selected;
    const ranked = this.runs.last?.result.strategies.find((r) => String(r.rank) === rank);
    if (ranked === undefined) {
      this.decision.hide();
      return this.detail.hide();
    }
    setPreferredFramework(this.runs.last?.request.scenario.framework ?? "megatron");
    if (this.detail.rank !== ranked.rank) {
      this.detail.show(ranked, ranked.estimate.feasible ? this.trace(ranked) : null);
      const result = this.runs.last?.result;
      this.decision.show(ranked, result?.strategies ?? [], result?.family_bests);
    }
  }

  private trace(ranked: RankedStrategy) {
    const traced = this.runs.trace(ranked);
    traced.catch((error: unknown) => {
      if (!(error instanceof CancelledError)) this.onTraceError();
    });
    return traced;
  }
}
