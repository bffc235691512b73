// The model: a preset picked from a filterable list, or custom dimensions.
import { t } from "../i18n/i18n";
import type { ModelPreset } from "../paraplan/types";
import type { Catalogue } from "../state/catalogue";
import {
  ACTIVATIONS,
  CUSTOM_MODEL,
  CUSTOM_MODEL_FIELDS,
  type CustomModelField,
  type PageState,
} from "../state/page-state";
import { h } from "./dom";
import { selectField, section, textField, type FormContext } from "./fields";
import { count } from "./format";

const MOE_FIELDS: readonly CustomModelField[] = [
  "num_experts",
  "top_k",
  "moe_ffn_hidden_size",
  "num_shared_experts",
  "first_k_dense_layers",
];

function matches(preset: ModelPreset, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const moe = preset.model.moe ? "moe mixture experts" : "";
  const text = [preset.id, ...(preset.aliases ?? []), String(preset.model.name ?? ""), moe]
    .join(" ")
    .toLowerCase();
  return words.every((word) => text.includes(word));
}

function optionText(preset: ModelPreset): string {
  return `${preset.id} · ${count(preset.parameters)}`;
}

// The keys of `object` that are not in `shown`.
function rest(object: Record<string, unknown>, shown: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !shown.includes(key)));
}

// The custom form starts from the preset the user was looking at, every key of it
// included: those without a field of their own go to other_fields.
function customFromPreset(preset: ModelPreset | undefined): PageState["custom"] {
  const model = preset?.model ?? {};
  const moe = (model.moe ?? {}) as Record<string, unknown>;
  const other = rest(model, [...CUSTOM_MODEL_FIELDS, "moe"]);
  const otherMoe = rest(moe, MOE_FIELDS);
  if (Object.keys(otherMoe).length > 0) other.moe = otherMoe;
  const custom = Object.fromEntries(
    CUSTOM_MODEL_FIELDS.map((field) => {
      const value = MOE_FIELDS.includes(field) ? moe[field] : model[field];
      return [field, value === undefined ? "" : String(value)];
    }),
  ) as PageState["custom"];
  custom.other_fields = Object.keys(other).length > 0 ? JSON.stringify(other) : "";
  return custom;
}

function customForm(context: FormContext): HTMLElement {
  const field = (name: CustomModelField) =>
    textField(
      context,
      {
        field: `custom.${name}`,
        get: (state) => state.custom[name],
        set: (state, value) => {
          state.custom[name] = value;
        },
      },
      {
        label: `model.${name}`,
        numeric: name !== "name" && name !== "other_fields",
        multiline: name === "other_fields",
        hint: name === "other_fields" ? "model.other_fields_hint" : undefined,
        placeholder: name === "num_query_groups" ? "model.defaultGroups" : undefined,
      },
    );
  const activation = selectField(
    context,
    {
      field: "custom.activation",
      get: (state) => state.custom.activation,
      set: (state, value) => {
        state.custom.activation = value;
      },
    },
    {
      label: "model.activation",
      choices: ACTIVATIONS.map((value) => ({ value })),
    },
  );
  return h(
    "div",
    { class: "custom-model" },
    h(
      "div",
      { class: "grid-2" },
      field("name"),
      field("num_layers"),
      field("hidden_size"),
      field("ffn_hidden_size"),
      field("num_attention_heads"),
      field("num_query_groups"),
      field("vocab_size"),
      activation,
    ),
    h("h3", { i18n: "model.moe" }),
    h("div", { class: "grid-2" }, ...MOE_FIELDS.map(field)),
    field("other_fields"),
  );
}

export function modelSection(context: FormContext, catalogue: Catalogue): HTMLElement {
  const { store } = context;
  const presets = [...catalogue.presets.models].sort((a, b) => a.parameters - b.parameters);
  const filter = h("input", {
    class: "filter",
    attrs: { type: "search", autocomplete: "off", spellcheck: "false" },
    i18nAttrs: {
      placeholder: "model.filterPlaceholder",
      "aria-label": "model.filter",
    },
  });
  const select = h("select", {
    testid: "model-select",
    i18nAttrs: { "aria-label": "model.preset" },
  });
  const info = h("p", { class: "model-info" });
  const custom = customForm(context);

  const fillOptions = (state: PageState) => {
    const shown = presets.filter(
      (preset) => preset.id === state.model || matches(preset, filter.value),
    );
    select.replaceChildren(
      ...shown.map((preset) =>
        h("option", { attrs: { value: preset.id }, text: optionText(preset) }),
      ),
      h("option", { attrs: { value: CUSTOM_MODEL }, text: t("model.custom") }),
    );
    if (shown.length === 0)
      select.prepend(
        h("option", {
          attrs: { value: "", disabled: "" },
          text: t("model.noMatch"),
        }),
      );
    select.value = state.model;
  };
  const describe = (state: PageState) => {
    const preset = catalogue.model(state.model);
    custom.hidden = state.model !== CUSTOM_MODEL;
    info.hidden = preset === undefined;
    if (preset === undefined) return;
    const moe = preset.model.moe as { num_experts: number; top_k: number } | undefined;
    info.replaceChildren(
      h("strong", { text: String(preset.model.name ?? preset.id) }),
      ` · ${t("model.parameters", { n: count(preset.parameters) })}`,
      moe ? ` · ${t("model.experts", { experts: moe.num_experts, k: moe.top_k })}` : "",
      h("span", {
        class: "source",
        text: preset.source,
        attrs: { title: preset.source },
      }),
    );
  };
  filter.addEventListener("input", () => fillOptions(store.get()));
  select.addEventListener("change", () => {
    store.update((state) => {
      if (
        select.value === CUSTOM_MODEL &&
        Object.values(state.custom).every((value) => value === "")
      ) {
        state.custom = customFromPreset(catalogue.model(state.model));
      }
      state.model = select.value;
    });
  });
  store.subscribe((state, previous) => {
    if (state.model === previous.model && state.lang === previous.lang) return;
    fillOptions(state);
    describe(state);
  });
  fillOptions(store.get());
  describe(store.get());

  const picker = h("div", { class: "field" }, filter, select);
  context.errors.register("model", picker, select);
  return section("section.model", picker, info, custom);
}
