// The model: a preset picked from a filterable list, or custom dimensions.
import { coreText } from "../i18n/core-texts";
import { t } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import type { HfImport, ModelPreset } from "../paraplan/types";
import type { Catalogue } from "../state/catalogue";
import { customFromModel, MOE_FIELDS, type ModelTools } from "../state/model-tools";
import { moduleErrorText } from "../state/module-errors";
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

// The custom form starts from the preset the user was looking at.
function customFromPreset(preset: ModelPreset | undefined): PageState["custom"] {
  return customFromModel(preset?.model ?? {});
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
        testid: `custom-${name}`,
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
    h("p", {
      class: "custom-parameters",
      testid: "custom-parameters",
      attrs: { "aria-live": "polite" },
    }),
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

const STATUS_KEYS: Record<HfImport["unmapped"][number]["status"], MessageKey> = {
  ignored: "model.import.ignored",
  unsupported: "model.import.unsupported",
  unknown: "model.import.unknown",
};

// What an import found: the architecture, the parameters, and each key left unmapped.
function importSummary(imported: HfImport): HTMLElement[] {
  const { total, active, mtp } = imported.parameters;
  const counts = [t("model.parameters", { n: count(total) })];
  if (active !== total) counts.push(t("model.activeParameters", { n: count(active) }));
  if (mtp > 0) counts.push(t("model.mtpParameters", { n: count(mtp) }));
  const order = ["unsupported", "unknown", "ignored"];
  const keys = [...imported.unmapped].sort(
    (a, b) => order.indexOf(a.status) - order.indexOf(b.status),
  );
  return [
    h(
      "p",
      {},
      h("strong", { text: t("model.import.done", { architecture: imported.architecture }) }),
      ` · ${counts.join(" · ")}`,
    ),
    ...(keys.length === 0
      ? []
      : [
          h("p", { text: t("model.import.unmapped", { n: keys.length }) }),
          h(
            "ul",
            { class: "unmapped-keys", testid: "hf-unmapped" },
            ...keys.map((entry) =>
              h(
                "li",
                { attrs: { "data-status": entry.status } },
                h("span", {
                  class: `key-status ${entry.status}`,
                  text: t(STATUS_KEYS[entry.status]),
                }),
                h("code", { text: entry.key }),
                ` ${coreText(entry.reason, entry.reason_text)}`,
              ),
            ),
          ),
        ]),
  ];
}

// "Import Hugging Face config.json": paste or upload; the model fills the custom form.
function importPanel(context: FormContext, models: ModelTools): HTMLElement {
  const text = h("textarea", {
    class: "hf-config",
    testid: "hf-config-input",
    attrs: { rows: "5", spellcheck: "false" },
    i18nAttrs: { placeholder: "model.import.placeholder", "aria-label": "model.import.paste" },
  });
  const file = h("input", {
    testid: "hf-config-file",
    attrs: { type: "file", accept: ".json,application/json" },
    i18nAttrs: { "aria-label": "model.import.upload" },
  });
  const result = h("div", { class: "hf-import-result", testid: "hf-import-result" });
  const error = h("p", {
    class: "import-error",
    testid: "hf-import-error",
    attrs: { role: "alert" },
  });
  error.hidden = true;
  const run = async () => {
    error.hidden = true;
    result.replaceChildren();
    if (text.value.trim() === "") return;
    try {
      const imported = await models.importHfConfig(text.value);
      context.store.update((state) => {
        state.custom = customFromModel(imported.model);
        state.model = CUSTOM_MODEL;
      });
      result.replaceChildren(...importSummary(imported));
    } catch (failure) {
      error.textContent = t("model.import.failed", {
        message: failure instanceof Error ? moduleErrorText(failure) : String(failure),
      });
      error.hidden = false;
    }
  };
  const button = h("button", {
    testid: "hf-import-button",
    attrs: { type: "button" },
    i18n: "model.import.button",
    on: { click: () => void run() },
  });
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (chosen === undefined) return;
    text.value = await chosen.text();
    await run();
  });
  return h(
    "details",
    { class: "hf-import", testid: "hf-import" },
    h("summary", { i18n: "model.import.title" }),
    h("p", { class: "hint", i18n: "model.import.hint" }),
    text,
    h(
      "div",
      { class: "hf-import-actions" },
      button,
      h("label", {}, h("span", { i18n: "model.import.upload" }), file),
    ),
    error,
    result,
  );
}

// The custom model's parameter count, asked of the worker a moment after the last keystroke.
function liveCount(context: FormContext, models: ModelTools, line: HTMLElement): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;
  const show = async (state: PageState) => {
    const ticket = ++asked;
    const outcome = await models.parameterCounts(state.custom);
    if (ticket !== asked) return; // a later count is under way
    if (outcome.status === "counted") {
      const { total, active, mtp } = outcome.counts;
      const parts = [t("model.parameters", { n: count(total) })];
      if (active !== total) parts.push(t("model.activeParameters", { n: count(active) }));
      if (mtp > 0) parts.push(t("model.mtpParameters", { n: count(mtp) }));
      line.textContent = parts.join(" · ");
      line.dataset.parameters = String(total);
    } else if (outcome.status !== "cancelled") {
      line.textContent = t("model.parametersUnknown");
      delete line.dataset.parameters;
    }
  };
  const schedule = (state: PageState) => {
    if (state.model !== CUSTOM_MODEL) return;
    clearTimeout(timer);
    timer = setTimeout(() => void show(context.store.get()), 250);
  };
  context.store.subscribe((state, previous) => {
    if (
      state.model !== previous.model ||
      state.lang !== previous.lang ||
      CUSTOM_MODEL_FIELDS.some((field) => state.custom[field] !== previous.custom[field])
    )
      schedule(state);
  });
  schedule(context.store.get());
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
  const models = context.models;
  const importer = models ? importPanel(context, models) : null;
  if (models) {
    liveCount(context, models, custom.querySelector<HTMLElement>(".custom-parameters")!);
  }

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
  return section("section.model", picker, info, importer, custom);
}
