// How a strategy is launched on each framework (the search result's `launch`, docs/contract.md
// section 5): a framework selector, the command and each file with copy and download buttons,
// or the fields the framework cannot express.
import { coreTextList } from "../i18n/core-texts";
import { t } from "../i18n/i18n";
import { FRAMEWORKS } from "../state/page-state";
import type { Launch, RankedStrategy } from "../paraplan/types";
import { copyText, download } from "./clipboard";
import { h } from "./dom";

// The framework shown first: the one the last search was for, until another is picked here.
let preferred: string = FRAMEWORKS[0];
let searched: string = FRAMEWORKS[0];

export function setPreferredFramework(framework: string): void {
  if (framework === searched || !(FRAMEWORKS as readonly string[]).includes(framework)) return;
  searched = framework;
  preferred = framework;
}

function buttons(name: string, text: string, testid: string): HTMLElement {
  const copy = h("button", {
    class: "secondary",
    text: t("launch.copy"),
    testid: `${testid}-copy`,
    attrs: { type: "button" },
  });
  copy.addEventListener("click", () => void copyText(text, copy));
  const save = h("button", {
    class: "secondary",
    text: t("launch.download"),
    testid: `${testid}-download`,
    attrs: { type: "button" },
    on: { click: () => download(name, "text/plain", text) },
  });
  return h("div", { class: "actions" }, copy, save);
}

function block(title: string, name: string, text: string, testid: string): HTMLElement {
  return h(
    "div",
    { class: "flags launch-block", testid },
    h("h4", { text: title }),
    h("pre", { text }),
    buttons(name, text, testid),
  );
}

function body(framework: string, launch: Launch | undefined): HTMLElement {
  if (launch === undefined) return h("p", { class: "muted", text: t("launch.missing") });
  if ("unsupported" in launch) {
    return h(
      "div",
      { testid: "launch-unsupported" },
      h("p", { text: t("launch.unsupported", { framework }) }),
      h(
        "ul",
        {},
        ...coreTextList(launch.unsupported, launch.unsupported_texts).map((reason) =>
          h("li", { text: reason }),
        ),
      ),
    );
  }
  return h(
    "div",
    {},
    block(`${t("launch.command")} (launch.sh)`, "launch.sh", launch.command, "launch-command"),
    ...Object.entries(launch.files).map(([name, text]) => block(name, name, text, "launch-file")),
  );
}

// The launch panel's content for `ranked`.
export function launchView(ranked: RankedStrategy): HTMLElement {
  const select = h(
    "select",
    { testid: "launch-framework", attrs: { "aria-label": t("launch.framework") } },
    ...FRAMEWORKS.map((framework) =>
      h("option", {
        attrs: { value: framework },
        text:
          ranked.launch?.[framework] && "unsupported" in ranked.launch[framework]
            ? `${framework} ✕`
            : framework,
      }),
    ),
  ) as HTMLSelectElement;
  select.value = preferred;
  const content = h("div", { class: "launch-body" }, body(preferred, ranked.launch?.[preferred]));
  select.addEventListener("change", () => {
    preferred = select.value;
    content.replaceChildren(body(select.value, ranked.launch?.[select.value]));
  });
  return h(
    "div",
    { class: "launch", testid: "launch-view" },
    h("label", { class: "launch-select" }, h("span", { text: t("launch.framework") }), select),
    content,
  );
}
