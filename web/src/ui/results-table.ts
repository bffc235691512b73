// The ranked strategies as a sortable table; a row opens its details.
import { t } from "../i18n/i18n";
import type { RankedStrategy } from "../paraplan/types";
import type { Store } from "../state/store";
import { COLUMNS, parseSort, sortedStrategies, type Column } from "./columns";
import { h } from "./dom";

export class ResultsTable {
  readonly element: HTMLElement;
  private readonly table = h("table", {
    testid: "results-table",
    class: "results",
  });
  private strategies: RankedStrategy[] = [];
  private variants = new Map<number, number>();
  // Announces the order after a sort (screen readers).
  private readonly announcer = h("p", {
    class: "visually-hidden",
    testid: "sort-status",
    attrs: { "aria-live": "polite", role: "status" },
  });

  constructor(private readonly store: Store) {
    this.element = h("div", { class: "table-scroll" }, this.announcer, this.table);
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
  show(strategies: RankedStrategy[], variants = new Map<number, number>()): void {
    this.strategies = strategies;
    this.variants = variants;
    this.render();
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
          h("button", {
            class: "sort",
            text: t(column.label) + arrow,
            attrs: {
              type: "button",
              title: t("col.sortHint", { column: t(column.label) }),
            },
            on: {
              click: () => this.store.update((state) => (state.sort = this.nextSort(column))),
            },
          }),
        );
        if (active) th.setAttribute("aria-sort", sort.descending ? "descending" : "ascending");
        return th;
      }),
    );
  }

  private row(ranked: RankedStrategy): HTMLElement {
    const select = () => this.store.update((state) => (state.selected = String(ranked.rank)));
    const selected = this.store.get().selected === String(ranked.rank);
    const classes = [
      selected ? "selected" : "",
      ranked.estimate.feasible ? "" : "infeasible",
      ranked.tight ? "tight" : "",
    ];
    return h(
      "tr",
      {
        testid: "result-row",
        class: classes.join(" ").trim(),
        attrs: {
          tabindex: "0",
          "aria-selected": String(selected),
          "data-rank": String(ranked.rank),
          "data-headroom-gib": String(ranked.headroom_gib),
          title: [
            ...ranked.estimate.infeasible_reasons,
            ...(ranked.tight ? [t("table.tight")] : []),
          ].join("\n"),
        },
        on: {
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
          column.id === "rank" ? this.variantBadge(ranked.rank) : null,
        ),
      ),
    );
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
    this.element.hidden = rows.length === 0;
  }
}
