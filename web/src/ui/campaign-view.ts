// A training campaign at one strategy's speed: tokens to train (and a price per GPU-hour)
// give days, GPU-hours and cost. The inputs live in the URL (train-tokens, gpu-hour-price);
// the panel redraws its own numbers as they are typed.
import { t } from "../i18n/i18n";
import type { Report } from "../paraplan/types";
import { campaign, parsePrice, parseTokens } from "../state/campaign";
import type { Store } from "../state/store";
import { h } from "./dom";
import { number } from "./format";

type Key = "trainTokens" | "gpuHourPrice";

function outcome(store: Store, report: Report): { rows: [string, string][]; error: string } {
  const { trainTokens, gpuHourPrice } = store.get();
  const tokens = parseTokens(trainTokens);
  const price = parsePrice(gpuHourPrice);
  if (tokens === null) return { rows: [], error: t("campaign.tokensError") };
  if (price === null) return { rows: [], error: t("campaign.priceError") };
  const result = campaign(tokens, report.tokens_per_s_per_gpu, report.num_gpus, price);
  if (result === null) return { rows: [], error: "" };
  const rows: [string, string][] = [
    [t("campaign.days"), number(result.days, result.days < 10 ? 1 : 0)],
    [t("campaign.gpuHours"), number(result.gpuHours, 0)],
  ];
  if (result.cost !== null) rows.push([t("campaign.cost"), number(result.cost, 0)]);
  return { rows, error: "" };
}

export function campaignPanel(store: Store, report: Report): HTMLElement {
  const result = h("dl", { class: "summary", testid: "campaign-result" });
  const error = h("p", { class: "field-error", attrs: { role: "alert" } });
  const fields = new Map<Key, HTMLElement>();
  const refresh = () => {
    const { rows, error: text } = outcome(store, report);
    result.replaceChildren(
      ...rows.flatMap(([term, value]) => [h("dt", { text: term }), h("dd", { text: value })]),
    );
    error.textContent = text;
    error.hidden = text === "";
    const state = store.get();
    fields.get("trainTokens")?.classList.toggle("invalid", parseTokens(state.trainTokens) === null);
    fields
      .get("gpuHourPrice")
      ?.classList.toggle("invalid", parsePrice(state.gpuHourPrice) === null);
  };
  const input = (key: Key, label: string, placeholder: string): HTMLElement => {
    const field = h("input", {
      attrs: {
        type: "text",
        id: `campaign-${key}`,
        inputmode: key === "gpuHourPrice" ? "decimal" : "text",
        placeholder,
        spellcheck: "false",
      },
    });
    field.value = store.get()[key];
    field.addEventListener("input", () => {
      store.update((state) => (state[key] = field.value));
      refresh();
    });
    const wrapper = h(
      "div",
      { class: "field" },
      h("label", { text: label, attrs: { for: field.id } }),
      field,
    );
    fields.set(key, wrapper);
    return wrapper;
  };
  const panel = h(
    "section",
    { class: "card decision-card", testid: "campaign" },
    h("h3", { i18n: "campaign.title" }),
    h(
      "div",
      { class: "campaign-inputs" },
      input("trainTokens", t("campaign.tokens"), "2T"),
      input("gpuHourPrice", t("campaign.price"), "2.5"),
    ),
    error,
    result,
    h("p", { class: "hint", i18n: "campaign.hint" }),
  );
  refresh();
  return panel;
}
