// Form fields bound to the page state: typing updates the state, and a state
// change from elsewhere (the URL, the GPU editor) updates the field.
import type { MessageKey } from "../i18n/messages";
import type { PageState } from "../state/page-state";
import type { FieldId } from "../state/checker";
import type { Store } from "../state/store";
import { h, type Child } from "./dom";
import type { FieldErrors } from "./field-errors";
import type { ModelTools } from "../state/model-tools";

export interface FormContext {
  store: Store;
  errors: FieldErrors;
  // The model section's module calls (config.json import, live parameter count).
  models?: ModelTools;
}

export interface Binding {
  field: FieldId;
  get: (state: PageState) => string;
  set: (state: PageState, value: string) => void;
}

// The page state's free-text properties.
export type TextKey = {
  [K in keyof PageState]: string extends PageState[K] ? K : never;
}[keyof PageState];

// A field bound to the text property of the page state of its own name.
export function stateBinding(key: TextKey): Binding {
  return {
    field: key,
    get: (state) => state[key],
    set: (state, value) => {
      state[key] = value;
    },
  };
}

interface FieldOptions {
  label: MessageKey;
  testid?: string;
  unit?: MessageKey;
  hint?: MessageKey;
}

let nextId = 0;

function wrap(
  context: FormContext,
  binding: Binding,
  options: FieldOptions,
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
): HTMLElement {
  input.id = `field-${nextId++}`;
  if (options.testid) input.dataset.testid = options.testid;
  const control: Child = options.unit
    ? h("div", { class: "with-unit" }, input, h("span", { class: "unit", i18n: options.unit }))
    : input;
  const wrapper = h(
    "div",
    { class: "field" },
    h("label", { i18n: options.label, attrs: { for: input.id } }),
    control,
    options.hint ? h("p", { class: "hint", i18n: options.hint }) : null,
  );
  context.errors.register(binding.field, wrapper, input);
  const sync = (state: PageState) => {
    if (input.value !== binding.get(state)) input.value = binding.get(state);
  };
  sync(context.store.get());
  context.store.subscribe(sync);
  input.addEventListener("input", () => {
    context.store.update((state) => binding.set(state, input.value));
  });
  return wrapper;
}

export function textField(
  context: FormContext,
  binding: Binding,
  options: FieldOptions & {
    numeric?: boolean;
    multiline?: boolean;
    placeholder?: MessageKey;
  },
): HTMLElement {
  if (options.multiline) {
    const area = h("textarea", {
      attrs: { rows: "3", autocomplete: "off", spellcheck: "false" },
      i18nAttrs: options.placeholder ? { placeholder: options.placeholder } : {},
    });
    return wrap(context, binding, options, area);
  }
  const input = h("input", {
    attrs: {
      type: "text",
      autocomplete: "off",
      spellcheck: "false",
      ...(options.numeric ? { inputmode: "numeric" } : {}),
    },
    i18nAttrs: options.placeholder ? { placeholder: options.placeholder } : {},
  });
  return wrap(context, binding, options, input);
}

export interface Choice {
  value: string;
  label?: MessageKey;
  text?: string;
}

export function selectField(
  context: FormContext,
  binding: Binding,
  options: FieldOptions & { choices: Choice[] },
): HTMLElement {
  const select = h(
    "select",
    {},
    ...options.choices.map((choice) =>
      h("option", {
        attrs: { value: choice.value },
        i18n: choice.label,
        text: choice.text ?? choice.value,
      }),
    ),
  );
  return wrap(context, binding, options, select);
}

export function checkboxField(
  context: FormContext,
  label: MessageKey,
  get: (state: PageState) => boolean,
  set: (state: PageState, value: boolean) => void,
): HTMLElement {
  const input = h("input", { attrs: { type: "checkbox" } });
  input.checked = get(context.store.get());
  input.addEventListener("change", () =>
    context.store.update((state) => set(state, input.checked)),
  );
  context.store.subscribe((state) => {
    input.checked = get(state);
  });
  return h("label", { class: "checkbox" }, input, h("span", { i18n: label }));
}

export function section(title: MessageKey, ...children: Child[]): HTMLElement {
  return h("section", { class: "card" }, h("h2", { i18n: title }), ...children);
}
