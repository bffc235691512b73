// The ranked strategies as a sortable table; a row opens its details. A provisional table (the
// best so far while a search runs) has its own test ids, and its rows open nothing: they are
// replaced by the exact ranking when the search ends.
import { coreReasons } from "../i18n/core-reasons";
import { coreNotes, coreText } from "../i18n/core-texts";
import { t } from "../i18n/i18n";
import type { TableRow } from "../paraplan/types";
import type { Store } from "../state/store";
import { COLUMNS, parseSort, sortedStrategies, type Column } from "./columns";
import { h } from "./dom";

export class ResultsTable {
  readonly element: HTMLElement;
  private readonly table: HTMLElement;
  private strategies: TableRow[] = [];
  private variants = new Map<number, number>();
  private held = false; // hidden while the provisional table stands in its place
  // Announces the order after a sort (screen readers).
  private readonly announcer = h("p", {
    class: "visually-hidden",
    testid: "sort-status",
    attrs: { "aria-live": "polite", role: "status" },
  });

  constructor(
    private readonly store: Store,
    private readonly provisional = false,
  ) {
    this.table = h("table", {
      testid: provisional ? "provisional-table" : "results-table",
      class: provisional ? "results provisional" : "results",
      attrs: provisional ? { "aria-busy": "true" } : {},
    });
    // One announcer of the order: the results table's (a sort reorders both tables).
    this.element = h(
      "div",
      { class: "table-scroll" },
      provisional ? null : this.announcer,
      this.table,
    );
    this.element.hidden = true;
    store.subscribe((state, previous) => {
      if (
        state.sort !== previous.sort ||
        state.selected !== previous.selected ||
        state.lang !== previous.lang
      ) {
        this.render();
      }
      if (state.sort !== previous.sort || state.lang !== previous.lang) this.announce();
    });
  }

  // `variants`: how many near-duplicates each listed rank stands for.
  show(strategies: TableRow[], variants = new Map<number, number>()): void {
    this.strategies = strategies;
    this.variants = variants;
    this.render();
  }

  // Hides the table, whatever it lists, until released.
  hold(held: boolean): void {
    this.held = held;
    this.element.hidden = held || this.strategies.length === 0;
  }

  private announce(): void {
    const sort = parseSort(this.store.get().sort);
    this.announcer.textContent = sort
      ? t("table.sortedBy", {
          column: t(sort.column.label),
          direction: t(sort.descending ? "table.descending" : "table.ascending"),
        })
      : t("table.ranking");
  }

  private nextSort(column: Column): string {
    const current = parseSort(this.store.get().sort);
    if (current?.column.id === column.id)
      return `${column.id}:${current.descending ? "asc" : "desc"}`;
    return `${column.id}:${column.descendingFirst ? "desc" : "asc"}`;
  }

  private header(): HTMLElement {
    const sort = parseSort(this.store.get().sort);
    return h(
      "tr",
      {},
      ...COLUMNS.map((column) => {
        const active = sort?.column.id === column.id;
        const arrow = active ? (sort.descending ? " ▼" : " ▲") : "";
        const th = h(
          "th",
          {
            class: `col-${column.id}${column.numeric ? " numeric" : ""}`,
            attrs: { scope: "col" },
          },
          h(
            "button",
            {
              class: "sort",
              attrs: {
                type: "button",
                title: t("col.sortHint", { column: t(column.label) }),
              },
              on: {
                click: () => this.store.update((state) => (state.sort = this.nextSort(column))),
              },
            },
            ...breakAfterSlashes(t(column.label) + arrow),
          ),
        );
        if (active) th.setAttribute("aria-sort", sort.descending ? "descending" : "ascending");
        return th;
      }),
    );
  }

  private row(ranked: TableRow): HTMLElement {
    const select = () => this.store.update((state) => (state.selected = String(ranked.rank)));
    const selected = !this.provisional && this.store.get().selected === String(ranked.rank);
    const { estimate } = ranked;
    const verdict = estimate.memory.verdict ?? (estimate.feasible ? "fits" : "oom");
    const band = estimate.uncertainty?.tokens_per_s_per_gpu;
    const outOfRegime = estimate.validation !== undefined && !estimate.validation.validated;
    const classes = [
      selected ? "selected" : "",
      estimate.feasible ? "" : "infeasible",
      ranked.tight || verdict === "at_risk" ? "tight" : "",
      outOfRegime ? "out-of-regime" : "",
    ];
    return h(
      "tr",
      {
        testid: this.provisional ? "provisional-row" : "result-row",
        class: classes.join(" ").trim(),
        attrs: {
          ...(this.provisional ? {} : { tabindex: "0", "aria-selected": String(selected) }),
          "data-rank": String(ranked.rank),
          "data-headroom-gib": String(ranked.headroom_gib),
          "data-memory-verdict": verdict,
          ...(band
            ? { "data-tokens-low": String(band[0]), "data-tokens-high": String(band[1]) }
            : {}),
          ...(ranked.tie_with_best ? { "data-tie": "true" } : {}),
          ...(outOfRegime ? { "data-out-of-regime": "true" } : {}),
          title: [
            ...coreReasons(estimate),
            ...(estimate.memory.verdict_reason
              ? [coreText(estimate.memory.verdict_reason, estimate.memory.verdict_reason_text)]
              : []),
            ...(ranked.tight && estimate.memory.verdict === undefined ? [t("table.tight")] : []),
            ...(ranked.rank_note ? [coreText(ranked.rank_note, ranked.rank_note_text)] : []),
            ...(outOfRegime ? [t("table.outOfRegime"), ...coreNotes(estimate.validation)] : []),
          ].join("\n"),
        },
        on: this.provisional
          ? {}
          : {
              click: select,
              keydown: (event) => {
                if (event.key === "Enter" || event.key === " ") {
                  event.preventDefault();
                  select();
                }
              },
            },
      },
      ...COLUMNS.map((column) =>
        h(
          "td",
          {
            class: `col-${column.id}${column.numeric ? " numeric" : ""}`,
            text: column.text(ranked),
          },
          column.id === "rank" ? this.rankMarks(ranked, outOfRegime) : null,
        ),
      ),
    );
  }

  // After the rank: ≈ where the model cannot tell it from the first row (their uncertainty
  // bands overlap), ◇ outside the validated regimes, and the near-duplicates it stands for.
  private rankMarks(ranked: TableRow, outOfRegime: boolean): DocumentFragment {
    const marks = document.createDocumentFragment();
    // A space keeps the rank a word of its own in the row's text.
    if (ranked.tie_with_best || outOfRegime) marks.append(" ");
    if (ranked.tie_with_best && ranked.rank > 1)
      marks.append(
        h("span", {
          class: "badge tie",
          testid: "tie-badge",
          text: "≈",
          attrs: { title: t("table.tie") },
        }),
      );
    if (outOfRegime)
      marks.append(
        h("span", {
          class: "badge regime",
          testid: "regime-badge",
          text: "◇",
          attrs: {
            title: [t("table.outOfRegime"), ...coreNotes(ranked.estimate.validation)].join("\n"),
          },
        }),
      );
    const variants = this.variantBadge(ranked.rank);
    if (variants) marks.append(variants);
    return marks;
  }

  private variantBadge(rank: number): HTMLElement | null {
    const n = this.variants.get(rank) ?? 0;
    if (n === 0) return null;
    return h("span", {
      class: "badge",
      testid: "variant-badge",
      text: t("group.variants", { n }),
      attrs: { title: t("group.variantsHint", { n }) },
    });
  }

  private render(): void {
    const rows = sortedStrategies(this.strategies, this.store.get().sort).map((ranked) =>
      this.row(ranked),
    );
    this.table.replaceChildren(h("thead", {}, this.header()), h("tbody", {}, ...rows));
    this.element.hidden = this.held || rows.length === 0;
  }
}

// A label split after each "/" with <wbr>: at phone widths "Free/GPU" wraps as "Free/" and
// "GPU", never inside a word ("Fre", "e/G", "PU" under overflow-wrap: anywhere).
export function breakAfterSlashes(label: string): (string | HTMLElement)[] {
  return label
    .split("/")
    .flatMap((part, i, parts) => (i < parts.length - 1 ? [`${part}/`, h("wbr")] : [part]));
}
