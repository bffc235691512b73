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

// The fields are built when the section is first opened (or at once where the state pins a
// key): a closed section costs the page's start-up a summary line, not 14 bound fields.
export function pinnedSection(context: FormContext): HTMLElement {
  const grid = h("div", { class: "grid-5" });
  const details = h(
    "details",
    { class: "card pinned" },
    h("summary", { i18n: "section.pinned" }),
    h("p", { class: "hint", i18n: "section.pinnedHint" }),
    grid,
  );
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    grid.replaceChildren(...PINNED_FIELDS.map((name) => pinnedField(context, name)));
  };
  details.addEventListener("toggle", () => {
    if (details.open) build();
  });
  // Open at start where the state pins a key; a key pinned later builds the fields (closed).
  const pinned = (state: { pinned: Record<PinnedField, string> }) =>
    PINNED_FIELDS.some((name) => state.pinned[name] !== "");
  if (pinned(context.store.get())) {
    build();
    details.open = true;
  }
  context.store.subscribe((state) => {
    if (pinned(state)) build();
  });
  return details;
}

function pinnedField(context: FormContext, name: PinnedField): HTMLElement {
  const binding = {
    field: `pinned.${name}` as const,
    get: (state: { pinned: Record<PinnedField, string> }) => state.pinned[name],
    set: (state: { pinned: Record<PinnedField, string> }, value: string) => {
      state.pinned[name] = value;
    },
  };
  const label = `pinned.${name}` as MessageKey;
  const choices = CHOICES[name];
  return choices
    ? selectField(context, binding, { label, choices })
    : textField(context, binding, { label, numeric: true, placeholder: "pinned.auto" });
}
