// Messages shown at the field they are about. The first one on the page carries
// data-testid="error-message"; one not about any field shows in the banner.
import { t } from "../i18n/i18n";
import type { FieldError, FieldId } from "../state/checker";
import { h } from "./dom";

interface Field {
  wrapper: HTMLElement;
  input: HTMLElement;
}

export interface ShownError {
  field: FieldId | null;
  text: string;
}

// A mistake found by state/checker.ts, in the page's language.
export function shownError({ field, key, params }: FieldError): ShownError {
  return { field, text: t(key, params) };
}

export class FieldErrors {
  private readonly fields = new Map<FieldId, Field>();

  constructor(private readonly banner: HTMLElement) {}

  register(field: FieldId, wrapper: HTMLElement, input: HTMLElement): void {
    this.fields.set(field, { wrapper, input });
  }

  unregister(field: FieldId): void {
    this.fields.delete(field);
  }

  show(errors: ShownError[]): void {
    for (const { wrapper, input } of this.fields.values()) {
      wrapper.querySelector(":scope > .field-error")?.remove();
      wrapper.classList.remove("invalid");
      input.removeAttribute("aria-invalid");
    }
    const unplaced: string[] = [];
    for (const error of errors) {
      const field = error.field === null ? undefined : this.fields.get(error.field);
      if (field === undefined || field.wrapper.querySelector(":scope > .field-error")) {
        if (field === undefined) unplaced.push(error.text);
        continue;
      }
      field.wrapper.closest("details")?.setAttribute("open", "");
      field.wrapper.classList.add("invalid");
      field.input.setAttribute("aria-invalid", "true");
      field.wrapper.append(
        h("p", {
          class: "field-error",
          text: error.text,
          attrs: { role: "alert" },
        }),
      );
    }
    this.banner.replaceChildren(...unplaced.map((text) => h("p", { text })));
    this.banner.hidden = unplaced.length === 0;
    const messages = [this.banner, ...document.querySelectorAll<HTMLElement>(".field-error")];
    for (const message of messages) delete message.dataset.testid;
    const first = messages.find((message) => !message.hidden && message.offsetParent !== null);
    if (first) first.dataset.testid = "error-message";
  }

  // Brings the first invalid field into view and focus.
  focusFirst(): void {
    const invalid = [...this.fields.values()].find(({ wrapper }) =>
      wrapper.classList.contains("invalid"),
    );
    invalid?.input.focus();
  }
}
