// The page's title bar: name, what it does, the language switch; in an embed,
// a link to the full page instead of the description.
import type { Language } from "../state/page-state";
import type { Store } from "../state/store";
import { h } from "./dom";

const LANGUAGE_NAMES: Record<Language, string> = { en: "English", zh: "中文" };

export function header(store: Store, fullPageLink: () => string): HTMLElement {
  const language = h(
    "select",
    { testid: "language-select", i18nAttrs: { "aria-label": "app.language" } },
    ...(Object.keys(LANGUAGE_NAMES) as Language[]).map((lang) =>
      h("option", { attrs: { value: lang }, text: LANGUAGE_NAMES[lang] }),
    ),
  );
  language.value = store.get().lang;
  language.addEventListener("change", () =>
    store.update((state) => (state.lang = language.value as Language)),
  );
  const open = h("a", {
    class: "open-full",
    i18n: "app.openFull",
    attrs: { target: "_blank", rel: "noopener" },
  });
  const refreshLink = () => {
    language.value = store.get().lang;
    open.href = fullPageLink();
  };
  refreshLink();
  store.subscribe(refreshLink);
  return h(
    "header",
    { class: "site-header" },
    h(
      "div",
      { class: "brand" },
      h("img", {
        attrs: { src: "./favicon.svg", alt: "", width: "28", height: "28" },
      }),
      h(
        "div",
        {},
        h("h1", { i18n: "app.title" }),
        h("p", { class: "tagline", i18n: "app.tagline" }),
      ),
    ),
    h("div", { class: "header-tools" }, open, language),
  );
}
