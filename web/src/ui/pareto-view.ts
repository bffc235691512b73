// Throughput against memory for every listed feasible strategy, the Pareto front joined by a
// line; a point opens its strategy. Drawn as SVG (no canvas), so each point is a focusable
// element with its own label.
import { t } from "../i18n/i18n";
import type { RankedStrategy } from "../paraplan/types";
import { paretoFront } from "../state/grouping";
import type { Store } from "../state/store";
import { h } from "./dom";
import { gib, number } from "./format";
import { layoutLabel } from "./strategy-label";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 640;
const HEIGHT = 260;
const PAD = { left: 56, right: 12, top: 12, bottom: 36 };

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

function extent(values: number[]): [number, number] {
  const low = Math.min(...values);
  const high = Math.max(...values);
  const pad = high > low ? (high - low) * 0.08 : Math.max(1, high * 0.05);
  return [low - pad, high + pad];
}

export class ParetoView {
  readonly element: HTMLDetailsElement;
  private readonly plot = h("div", { class: "pareto-plot" });
  private strategies: RankedStrategy[] = [];

  constructor(
    private readonly store: Store,
    private readonly onSelect: (rank: number) => void,
  ) {
    this.element = h(
      "details",
      { class: "card pareto", testid: "pareto-view" },
      h("summary", { i18n: "pareto.title" }),
      h("p", { class: "hint", i18n: "pareto.hint" }),
      this.plot,
    );
    this.element.hidden = true;
    store.subscribe((state, previous) => {
      if (state.selected !== previous.selected || state.lang !== previous.lang) this.render();
    });
  }

  show(strategies: RankedStrategy[]): void {
    this.strategies = strategies;
    this.render();
  }

  private render(): void {
    const feasible = this.strategies.filter((r) => r.estimate.feasible);
    this.element.hidden = feasible.length === 0;
    if (feasible.length === 0) return this.plot.replaceChildren();
    const front = new Set(paretoFront(feasible));
    const [x0, x1] = extent(feasible.map((r) => r.estimate.memory.peak_gib_per_gpu));
    const [y0, y1] = extent(feasible.map((r) => r.estimate.tokens_per_s_per_gpu));
    const x = (v: number) => PAD.left + ((v - x0) / (x1 - x0)) * (WIDTH - PAD.left - PAD.right);
    const y = (v: number) =>
      HEIGHT - PAD.bottom - ((v - y0) / (y1 - y0)) * (HEIGHT - PAD.top - PAD.bottom);
    const chart = svg("svg", {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "group",
      "aria-label": t("pareto.title"),
      class: "pareto-svg",
    });
    chart.append(
      svg("line", {
        x1: PAD.left,
        y1: HEIGHT - PAD.bottom,
        x2: WIDTH - PAD.right,
        y2: HEIGHT - PAD.bottom,
        class: "axis",
      }),
      svg("line", {
        x1: PAD.left,
        y1: PAD.top,
        x2: PAD.left,
        y2: HEIGHT - PAD.bottom,
        class: "axis",
      }),
      svg(
        "text",
        { x: (WIDTH + PAD.left) / 2, y: HEIGHT - 6, "text-anchor": "middle" },
        t("pareto.xAxis"),
      ),
      svg("text", { x: PAD.left, y: HEIGHT - PAD.bottom + 14, "text-anchor": "start" }, gib(x0)),
      svg(
        "text",
        { x: WIDTH - PAD.right, y: HEIGHT - PAD.bottom + 14, "text-anchor": "end" },
        gib(x1),
      ),
      svg("text", { x: PAD.left - 4, y: HEIGHT - PAD.bottom, "text-anchor": "end" }, number(y0, 0)),
      svg("text", { x: PAD.left - 4, y: PAD.top + 10, "text-anchor": "end" }, number(y1, 0)),
      svg(
        "text",
        {
          x: 12,
          y: (HEIGHT - PAD.bottom) / 2,
          transform: `rotate(-90 12 ${(HEIGHT - PAD.bottom) / 2})`,
          "text-anchor": "middle",
        },
        t("pareto.yAxis"),
      ),
    );
    const line = [...front]
      .map((r) => `${x(r.estimate.memory.peak_gib_per_gpu)},${y(r.estimate.tokens_per_s_per_gpu)}`)
      .join(" ");
    chart.append(svg("polyline", { points: line, class: "front" }));
    const selected = this.store.get().selected;
    for (const ranked of [...feasible].reverse()) {
      const label = `#${ranked.rank} ${layoutLabel(ranked)}: ${number(ranked.estimate.tokens_per_s_per_gpu, 1)} tokens/s/GPU, ${gib(ranked.estimate.memory.peak_gib_per_gpu)}`;
      const point = svg("circle", {
        cx: x(ranked.estimate.memory.peak_gib_per_gpu),
        cy: y(ranked.estimate.tokens_per_s_per_gpu),
        r: String(ranked.rank) === selected ? 7 : 5,
        class: [
          "point",
          front.has(ranked) ? "on-front" : "",
          String(ranked.rank) === selected ? "selected" : "",
        ].join(" "),
        tabindex: 0,
        role: "button",
        "aria-label": label,
        "data-rank": ranked.rank,
        "data-testid": "pareto-point",
      });
      point.append(svg("title", {}, label));
      point.addEventListener("click", () => this.onSelect(ranked.rank));
      point.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          this.onSelect(ranked.rank);
        }
      });
      chart.append(point);
    }
    this.plot.replaceChildren(chart);
  }
}
