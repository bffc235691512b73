// Strategy keys the user fixes; the search explores the rest.
import type { MessageKey } from "../i18n/messages";
import { PINNED_FIELDS, type PinnedField } from "../state/page-state";
import { h } from "./dom";
import { selectField, textField, type Choice, type FormContext } from "./fields";

const AUTO: Choice = { value: "", label: "pinned.auto" };
const ON_OFF: Choice[] = [
  AUTO,
  { value: "on", label: "pinned.on" },
  { value: "off", label: "pinned.off" },
];
const CHOICES: Partial<Record<PinnedField, Choice[]>> = {
  sp: ON_OFF,
  flash: ON_OFF,
  recompute: [AUTO, { value: "none" }, { value: "selective" }, { value: "full" }],
  zero: [AUTO, { value: "0" }, { value: "1" }, { value: "2" }, { value: "3" }],
};

export function pinnedSection(context: FormContext): HTMLElement {
  const fields = PINNED_FIELDS.map((name) => {
    const binding = {
      field: `pinned.${name}`,
      get: (state: { pinned: Record<PinnedField, string> }) => state.pinned[name],
      set: (state: { pinned: Record<PinnedField, string> }, value: string) => {
        state.pinned[name] = value;
      },
    };
    const label = `pinned.${name}` as MessageKey;
    const choices = CHOICES[name];
    return choices
      ? selectField(context, binding, { label, choices })
      : textField(context, binding, {
          label,
          numeric: true,
          placeholder: "pinned.auto",
        });
  });
  const details = h(
    "details",
    { class: "card pinned" },
    h("summary", { i18n: "section.pinned" }),
    h("p", { class: "hint", i18n: "section.pinnedHint" }),
    h("div", { class: "grid-5" }, ...fields),
  );
  details.open = PINNED_FIELDS.some((name) => context.store.get().pinned[name] !== "");
  return details;
}
