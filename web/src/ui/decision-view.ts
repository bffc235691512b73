// Why the open strategy and not another: the runner-up and the best of each family with the
// difference in time and memory, the constraint that binds it, its sensitivities (a few more
// reports of modified strategies), a training campaign at its speed, whether it lies inside
// the validated regimes, and the button that adds it to the comparison.
import { coreReasons } from "../i18n/core-reasons";
import { coreNotes } from "../i18n/core-texts";
import { t } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import type { RankedStrategy, Report, SearchResult } from "../paraplan/types";
import {
  alternatives,
  bindingConstraint,
  modifiedScenario,
  SENSITIVITIES,
  type Sensitivity,
} from "../state/decision";
import { toggleCompared, comparedRanks } from "../state/compare";
import type { Runs } from "../state/runs";
import type { Store } from "../state/store";
import { scenarioOfStrategy } from "../state/strategy-scenario";
import { CancelledError } from "../worker/errors";
import { campaignPanel } from "./campaign-view";
import { h } from "./dom";
import { gib, number, percent, seconds } from "./format";
import { layoutLabel } from "./strategy-label";

function signedPercent(fraction: number): string {
  if (Math.abs(fraction) < 0.0005) return "±0%";
  return (fraction > 0 ? "+" : "−") + percent(Math.abs(fraction));
}

function signedGib(value: number): string {
  if (Math.abs(value) < 0.05) return "±0 GiB";
  return (value > 0 ? "+" : "−") + gib(Math.abs(value));
}

function section(title: MessageKey, testid: string, ...children: (Node | null)[]): HTMLElement {
  return h(
    "section",
    { class: "card decision-card", testid },
    h("h3", { i18n: title }),
    ...children,
  );
}

export class DecisionView {
  readonly element = h("div", { class: "decision", testid: "decision-view" });
  private shown: RankedStrategy | null = null;
  private strategies: RankedStrategy[] = [];
  private familyBests: SearchResult["family_bests"] = undefined;
  private sensitivities = new Map<Sensitivity, Report | string | null>();
  private generation = 0;
  private clusterSizes = new Map<Sensitivity, number>();

  constructor(
    private readonly store: Store,
    private readonly runs: Runs,
    private readonly onSelect: (rank: number) => void,
  ) {
    this.element.hidden = true;
    store.subscribe((state, previous) => {
      if (state.lang !== previous.lang || state.compare !== previous.compare) this.render();
    });
  }

  show(
    ranked: RankedStrategy,
    strategies: RankedStrategy[],
    familyBests: SearchResult["family_bests"] = undefined,
  ): void {
    this.shown = ranked;
    this.strategies = strategies;
    this.familyBests = familyBests;
    this.sensitivities = new Map();
    this.render();
    if (ranked.estimate.feasible) void this.measure(ranked);
  }

  hide(): void {
    this.shown = null;
    this.generation++;
    this.element.hidden = true;
    this.element.replaceChildren();
  }

  // The reports of the modified strategies, one after another.
  private async measure(ranked: RankedStrategy): Promise<void> {
    const generation = ++this.generation;
    const last = this.runs.last;
    if (last === null) return;
    const scenario = scenarioOfStrategy(last.request.scenario, ranked);
    const nodeSize = this.runs.gpusPerNode(scenario);
    this.clusterSizes = new Map();
    for (const change of SENSITIVITIES) {
      const modified = modifiedScenario(scenario, change, nodeSize);
      let outcome: Report | string | null = null;
      if (modified !== null) {
        this.clusterSizes.set(
          change,
          modified.cluster.gpus.reduce((sum, gpu) => sum + gpu.count, 0),
        );
        try {
          outcome = await this.runs.estimate(modified);
        } catch (error) {
          if (error instanceof CancelledError) return;
          outcome = error instanceof Error ? error.message : String(error);
        }
      }
      if (generation !== this.generation) return;
      this.sensitivities.set(change, outcome);
      this.render();
    }
  }

  private render(): void {
    const ranked = this.shown;
    if (ranked === null) return;
    const focused = this.element.contains(document.activeElement)
      ? (document.activeElement as HTMLElement).dataset.focusKey
      : undefined;
    this.element.hidden = false;
    const report = ranked.estimate;
    const compared = comparedRanks(this.store.get().compare);
    const inComparison = compared.includes(ranked.rank);
    const compare = h("button", {
      class: "secondary",
      testid: "compare-toggle",
      text: t(inComparison ? "compare.remove" : "compare.add"),
      attrs: {
        type: "button",
        "data-focus-key": "compare",
        ...(!inComparison && compared.length >= 3 ? { disabled: "" } : {}),
      },
      on: {
        click: () =>
          this.store.update(
            (state) => (state.compare = toggleCompared(state.compare, ranked.rank)),
          ),
      },
    });
    const children: HTMLElement[] = [h("div", { class: "actions decision-actions" }, compare)];
    if (report.feasible) {
      children.push(this.why(ranked), this.sensitivityTable(ranked));
      children.push(campaignPanel(this.store, report));
    }
    children.push(this.trust(report));
    this.element.replaceChildren(...children);
    if (focused) this.element.querySelector<HTMLElement>(`[data-focus-key="${focused}"]`)?.focus();
  }

  private why(ranked: RankedStrategy): HTMLElement {
    const mbsUp = this.sensitivities.get("mbsUp");
    const binding = bindingConstraint(
      ranked.estimate,
      ranked.strategy.micro_batch_size,
      typeof mbsUp === "object" ? mbsUp : null,
    );
    const bindingText =
      binding.kind === "memory"
        ? t("why.memoryBound", { mbs: binding.microBatch ?? 1 })
        : binding.kind === "comm"
          ? t("why.partBound", {
              part: t(`part.${binding.part}` as MessageKey),
              share: percent(binding.share),
            })
          : t("why.computeBound", { share: percent(binding.share) });
    const rows = alternatives(this.strategies, ranked, this.familyBests).map((alternative) => {
      const label = t(`why.${alternative.kind}` as MessageKey);
      const other = alternative.ranked;
      if (other === null)
        return h(
          "tr",
          { class: "muted" },
          h("th", { text: label, attrs: { scope: "row" } }),
          h("td", { text: t("why.noneListed"), attrs: { colspan: "4" } }),
        );
      // A family's best that is not listed (rank 0) cannot be opened: its layout and numbers say it.
      const open =
        other.rank > 0 || alternative.isChosen
          ? h("button", {
              class: "text-link",
              text: alternative.isChosen ? t("why.thisOne") : `#${other.rank}`,
              attrs: { type: "button", ...(alternative.isChosen ? { disabled: "" } : {}) },
              on: { click: () => this.onSelect(other.rank) },
            })
          : h("span", { class: "muted", text: t("why.notListed") });
      return h(
        "tr",
        {},
        h("th", { text: label, attrs: { scope: "row" } }),
        h("td", {}, open),
        h("td", { class: "layout", text: layoutLabel(other) }),
        h("td", {
          class: "numeric",
          text: alternative.isChosen ? "" : signedPercent(alternative.timeDelta),
        }),
        h("td", {
          class: "numeric",
          text: alternative.isChosen ? "" : signedGib(alternative.memoryDeltaGib),
        }),
      );
    });
    return section(
      "why.title",
      "why-view",
      h("p", { class: "binding", testid: "binding", text: bindingText }),
      h(
        "div",
        { class: "table-scroll" },
        h(
          "table",
          { class: "compact", testid: "alternatives" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { i18n: "why.against" }),
              h("th", { i18n: "col.rank" }),
              h("th", { i18n: "why.layout" }),
              h("th", { class: "numeric", i18n: "why.timeDelta" }),
              h("th", { class: "numeric", i18n: "why.memoryDelta" }),
            ),
          ),
          h("tbody", {}, ...rows),
        ),
      ),
      h("p", { class: "hint", i18n: "why.hint" }),
    );
  }

  private sensitivityTable(ranked: RankedStrategy): HTMLElement {
    const base = ranked.estimate;
    const rows = SENSITIVITIES.map((change) => {
      const label = h("th", {
        text: t(`sens.${change}` as MessageKey, { gpus: this.clusterSizes.get(change) ?? "—" }),
        attrs: { scope: "row" },
      });
      if (!this.sensitivities.has(change))
        return h("tr", {}, label, h("td", { text: "…", attrs: { colspan: "4" } }));
      const outcome = this.sensitivities.get(change);
      if (outcome === null || outcome === undefined)
        return h("tr", {}, label, h("td", { i18n: "sens.notApplicable", attrs: { colspan: "4" } }));
      if (typeof outcome === "string")
        return h(
          "tr",
          {},
          label,
          h("td", { class: "module-text", text: outcome, attrs: { colspan: "4" } }),
        );
      if (!outcome.feasible)
        return h(
          "tr",
          { class: "infeasible" },
          label,
          h(
            "td",
            { text: `${t("table.infeasible")}: `, attrs: { colspan: "4" } },
            // The module's own words, translated where the reason's id has a translation.
            h("span", { class: "module-text", text: coreReasons(outcome)[0] ?? "" }),
          ),
        );
      return h(
        "tr",
        {},
        label,
        h("td", { class: "numeric", text: number(outcome.tokens_per_s_per_gpu, 1) }),
        h("td", {
          class: "numeric",
          text: signedPercent(outcome.tokens_per_s_per_gpu / base.tokens_per_s_per_gpu - 1),
        }),
        h("td", { class: "numeric", text: seconds(outcome.iteration_time_s) }),
        h("td", {
          class: "numeric",
          text: `${gib(outcome.memory.peak_gib_per_gpu)} (${signedGib(
            outcome.memory.peak_gib_per_gpu - base.memory.peak_gib_per_gpu,
          )})`,
        }),
      );
    });
    return section(
      "sens.title",
      "sensitivities-view",
      h(
        "div",
        { class: "table-scroll" },
        h(
          "table",
          { class: "compact", testid: "sensitivities" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { i18n: "sens.change" }),
              h("th", { class: "numeric", i18n: "col.tokens" }),
              h("th", { class: "numeric", i18n: "sens.throughputDelta" }),
              h("th", { class: "numeric", i18n: "col.iteration" }),
              h("th", { class: "numeric", i18n: "col.memory" }),
            ),
          ),
          h("tbody", {}, ...rows),
        ),
      ),
      h("p", { class: "hint", i18n: "sens.hint" }),
    );
  }

  private trust(report: Report): HTMLElement {
    const validation = report.validation;
    const notes = coreNotes(validation);
    return section(
      "trust.title",
      "trust-view",
      h("p", {
        class: validation && !validation.validated ? "warning" : "",
        testid: "validation-status",
        text:
          validation === undefined
            ? t("trust.unknown")
            : validation.validated
              ? t("trust.validated")
              : t("trust.outside"),
      }),
      notes.length > 0
        ? h(
            "ul",
            { class: "module-text", testid: "validation-notes" },
            ...notes.map((note) => h("li", { text: note })),
          )
        : null,
      h("button", {
        class: "text-link",
        i18n: "trust.seeTable",
        attrs: { type: "button" },
        on: {
          click: () => {
            const table = document.querySelector<HTMLDetailsElement>(
              '[data-testid="validation-table"]',
            );
            if (table === null) return;
            table.open = true;
            table.scrollIntoView();
            table.querySelector("summary")?.focus();
          },
        },
      }),
      report.mfu_causal !== undefined && report.feasible
        ? h("p", {
            class: "hint",
            text: t("trust.mfuCausal", {
              mfu: percent(report.mfu),
              causal: percent(report.mfu_causal),
            }),
          })
        : null,
    );
  }
}
