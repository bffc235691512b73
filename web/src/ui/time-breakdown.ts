// Where an iteration's time goes: one stacked bar and a legend with the numbers.
import { t } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import { TIME_PARTS, type Report } from "../paraplan/types";
import { h } from "./dom";
import { percent, seconds } from "./format";
import { TIME_PART_COLOURS } from "./palette";

export function timeBreakdown(report: Report): HTMLElement {
  const total = report.iteration_time_s;
  const parts = TIME_PARTS.map((part) => ({
    part,
    value: report.time_breakdown_s[part],
  })).filter(({ value }) => value > 0);
  const bar = h("div", { class: "stacked-bar", attrs: { role: "img" } });
  const legend = h("table", { class: "legend-table" });
  for (const { part, value } of parts) {
    const name = t(`part.${part}` as MessageKey);
    const segment = h("div", {
      attrs: { title: `${name}: ${seconds(value)}` },
    });
    segment.style.flexGrow = String(value);
    segment.style.background = TIME_PART_COLOURS[part];
    bar.append(segment);
    const swatch = h("span", { class: "swatch" });
    swatch.style.background = TIME_PART_COLOURS[part];
    legend.append(
      h(
        "tr",
        {},
        h("td", {}, swatch, name),
        h("td", { class: "numeric", text: seconds(value) }),
        h("td", { class: "numeric muted", text: percent(value / total) }),
      ),
    );
  }
  bar.setAttribute(
    "aria-label",
    parts
      .map(({ part, value }) => `${t(`part.${part}` as MessageKey)} ${seconds(value)}`)
      .join(", "),
  );
  return h("div", { class: "time-breakdown" }, bar, legend);
}
