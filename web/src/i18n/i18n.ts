// The current language and the translation of message keys. Elements built with
// a `data-i18n` attribute (see ui/dom.ts) are retranslated when it changes.
import type { Language } from "../state/page-state";
import { en, zh, type MessageKey } from "./messages";

const catalogues: Record<Language, Record<MessageKey, string>> = { en, zh };
let current: Language = "en";

export type MessageParams = Record<string, string | number>;

export function language(): Language {
  return current;
}

export function t(key: MessageKey, params: MessageParams = {}): string {
  const text = catalogues[current][key] ?? en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (match, name: string) =>
    name in params ? String(params[name]) : match,
  );
}

// Switches the language and retranslates the static text under `root`.
export function setLanguage(lang: Language, root: ParentNode = document): void {
  current = lang;
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const element of root.querySelectorAll<HTMLElement>("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n as MessageKey);
  }
  for (const attribute of ["placeholder", "title", "aria-label"]) {
    const data = `data-i18n-${attribute}`;
    for (const element of root.querySelectorAll<HTMLElement>(`[${data}]`)) {
      element.setAttribute(attribute, t(element.getAttribute(data) as MessageKey));
    }
  }
}
