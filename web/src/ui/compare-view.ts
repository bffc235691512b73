// Two or three strategies side by side: their layouts, speed, memory, and where the time goes.
import { t } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import { TIME_PARTS, type RankedStrategy } from "../paraplan/types";
import { comparedRanks, toggleCompared } from "../state/compare";
import type { Store } from "../state/store";
import { append, h } from "./dom";
import { gib, number, percent, seconds } from "./format";
import { gpusText, recomputeText, yesNo } from "./strategy-text";

type Row = [string, (ranked: RankedStrategy) => string];

function rows(): Row[] {
  const feasible = (text: (r: RankedStrategy) => string) => (r: RankedStrategy) =>
    r.estimate.feasible ? text(r) : "—";
  return [
    [t("col.tokens"), feasible((r) => number(r.estimate.tokens_per_s_per_gpu, 1))],
    [t("col.iteration"), feasible((r) => seconds(r.estimate.iteration_time_s))],
    [t("col.mfu"), feasible((r) => percent(r.estimate.mfu))],
    [t("col.memory"), feasible((r) => gib(r.estimate.memory.peak_gib_per_gpu))],
    [t("col.headroom"), feasible((r) => gib(r.headroom_gib))],
    [t("col.gpus"), (r) => gpusText(r)],
    [t("col.tp"), (r) => String(r.strategy.tensor_model_parallel_size)],
    [t("col.pp"), (r) => String(r.strategy.pipeline_model_parallel_size)],
    [t("col.vp"), (r) => String(r.strategy.virtual_pipeline_model_parallel_size)],
    [t("col.cp"), (r) => String(r.strategy.context_parallel_size)],
    [t("col.ep"), (r) => String(r.strategy.expert_model_parallel_size)],
    [t("col.dp"), (r) => String(r.estimate.data_parallel_size)],
    [t("col.mbs"), (r) => String(r.strategy.micro_batch_size)],
    [t("col.sp"), (r) => yesNo(r.strategy.sequence_parallel)],
    [t("col.recompute"), (r) => recomputeText(r)],
    [t("col.zero"), (r) => String(r.strategy.zero_stage)],
    ...TIME_PARTS.map((part): Row => [
      t(`part.${part}` as MessageKey),
      feasible((r) => seconds(r.estimate.time_breakdown_s[part] ?? 0)),
    ]),
  ];
}

export class CompareView {
  readonly element = h("section", { class: "card compare", testid: "compare-view" });
  private strategies: RankedStrategy[] = [];

  constructor(
    private readonly store: Store,
    private readonly onSelect: (rank: number) => void,
  ) {
    this.element.hidden = true;
    store.subscribe((state, previous) => {
      if (state.compare !== previous.compare || state.lang !== previous.lang) this.render();
    });
  }

  show(strategies: RankedStrategy[]): void {
    this.strategies = strategies;
    this.render();
  }

  private render(): void {
    const ranks = comparedRanks(this.store.get().compare);
    const shown = ranks.flatMap((rank) => this.strategies.filter((r) => r.rank === rank));
    this.element.hidden = shown.length === 0;
    if (shown.length === 0) return this.element.replaceChildren();
    const best = Math.min(...shown.map((r) => r.estimate.iteration_time_s));
    const head = h(
      "tr",
      {},
      h("th", { i18n: "compare.strategy" }),
      ...shown.map((ranked) =>
        h(
          "th",
          { class: "numeric", attrs: { scope: "col" } },
          h("button", {
            class: "text-link",
            text: t("detail.title", { rank: ranked.rank }),
            attrs: { type: "button" },
            on: { click: () => this.onSelect(ranked.rank) },
          }),
          h("button", {
            class: "icon",
            text: "✕",
            attrs: {
              type: "button",
              title: t("compare.removeRank", { rank: ranked.rank }),
              "aria-label": t("compare.removeRank", { rank: ranked.rank }),
            },
            on: {
              click: () =>
                this.store.update(
                  (state) => (state.compare = toggleCompared(state.compare, ranked.rank)),
                ),
            },
          }),
        ),
      ),
    );
    const body = rows().map(([label, text]) =>
      h(
        "tr",
        {},
        h("th", { text: label, attrs: { scope: "row" } }),
        ...shown.map((ranked) => {
          const cell = h("td", { class: "numeric", text: text(ranked) });
          if (ranked.estimate.iteration_time_s === best && shown.length > 1)
            cell.classList.add("best");
          return cell;
        }),
      ),
    );
    this.element.replaceChildren();
    append(
      this.element,
      h("h3", { text: t("compare.title", { n: shown.length }) }),
      shown.length < 2 ? h("p", { class: "hint", i18n: "compare.hint" }) : null,
      h(
        "div",
        { class: "table-scroll" },
        h(
          "table",
          { class: "compact compare-table", testid: "compare-table" },
          h("thead", {}, head),
          h("tbody", {}, ...body),
        ),
      ),
    );
  }
}
