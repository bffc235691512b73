// A training campaign at one strategy's speed: tokens to train (and a price per GPU-hour)
// give days, GPU-hours and cost. The inputs live in the URL (train-tokens, gpu-hour-price).
import { t } from "../i18n/i18n";
import type { Report } from "../paraplan/types";
import { campaign, parsePrice, parseTokens } from "../state/campaign";
import type { Store } from "../state/store";
import { h } from "./dom";
import { number } from "./format";

function input(
  store: Store,
  key: "trainTokens" | "gpuHourPrice",
  label: string,
  placeholder: string,
  invalid: boolean,
): HTMLElement {
  const field = h("input", {
    attrs: {
      type: "text",
      inputmode: key === "gpuHourPrice" ? "decimal" : "text",
      placeholder,
      "data-focus-key": key,
      "aria-invalid": String(invalid),
      spellcheck: "false",
    },
  });
  field.id = `campaign-${key}`;
  field.value = store.get()[key];
  field.addEventListener("change", () => store.update((state) => (state[key] = field.value)));
  return h(
    "div",
    { class: invalid ? "field invalid" : "field" },
    h("label", { text: label, attrs: { for: field.id } }),
    field,
  );
}

export function campaignPanel(store: Store, report: Report): HTMLElement {
  const { trainTokens, gpuHourPrice } = store.get();
  const tokens = parseTokens(trainTokens);
  const price = parsePrice(gpuHourPrice);
  const result =
    tokens === null || price === null
      ? null
      : campaign(tokens, report.tokens_per_s_per_gpu, report.num_gpus, price);
  const rows: [string, string][] =
    result === null
      ? []
      : [
          [t("campaign.days"), number(result.days, result.days < 10 ? 1 : 0)],
          [t("campaign.gpuHours"), number(result.gpuHours, 0)],
          ...(result.cost === null
            ? []
            : [[t("campaign.cost"), number(result.cost, 0)] as [string, string]]),
        ];
  return h(
    "section",
    { class: "card decision-card", testid: "campaign" },
    h("h3", { i18n: "campaign.title" }),
    h(
      "div",
      { class: "campaign-inputs" },
      input(store, "trainTokens", t("campaign.tokens"), "2T", tokens === null),
      input(store, "gpuHourPrice", t("campaign.price"), "2.5", price === null),
    ),
    tokens === null
      ? h("p", { class: "field-error", i18n: "campaign.tokensError" })
      : price === null
        ? h("p", { class: "field-error", i18n: "campaign.priceError" })
        : null,
    h(
      "dl",
      { class: "summary", testid: "campaign-result" },
      ...rows.flatMap(([term, value]) => [h("dt", { text: term }), h("dd", { text: value })]),
    ),
    h("p", { class: "hint", i18n: "campaign.hint" }),
  );
}
