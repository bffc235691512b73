// Sharing and exporting: the page's link, an embed snippet, CSV and JSON files.
import { copyText } from "./clipboard";
import { h } from "./dom";

export interface ShareActions {
  link: () => string; // the page's URL
  embedLink: () => string;
  csv: () => void;
  json: () => void;
}

function embedSnippet(url: string): string {
  const escaped = url.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  return `<iframe src="${escaped}" title="Paraplan" width="100%" height="760" style="border:0" loading="lazy"></iframe>`;
}

function embedDialog(): HTMLDialogElement {
  const text = h("textarea", {
    attrs: { readonly: "", rows: "4", spellcheck: "false" },
    testid: "embed-snippet",
  });
  const copy = h("button", {
    class: "primary",
    i18n: "share.copy",
    attrs: { type: "button" },
  });
  const close = h("button", {
    class: "secondary",
    i18n: "share.close",
    attrs: { type: "button" },
  });
  const dialog = h(
    "dialog",
    { class: "embed-dialog" },
    h("h2", { i18n: "share.embedTitle" }),
    h("p", { class: "hint", i18n: "share.embedHint" }),
    text,
    h("div", { class: "actions" }, copy, close),
  );
  copy.addEventListener("click", () => void copyText(text.value, copy));
  close.addEventListener("click", () => dialog.close());
  return dialog;
}

export function shareBar(actions: ShareActions): {
  element: HTMLElement;
  exports: HTMLButtonElement[];
} {
  const dialog = embedDialog();
  const button = (
    label: "share.link" | "share.embed" | "share.csv" | "share.json",
    testid: string,
  ) =>
    h("button", {
      class: "secondary",
      i18n: label,
      testid,
      attrs: { type: "button" },
    });
  const link = button("share.link", "share-link");
  const embed = button("share.embed", "share-embed");
  const csv = button("share.csv", "export-csv");
  const json = button("share.json", "export-json");
  link.addEventListener("click", () => void copyText(actions.link(), link));
  embed.addEventListener("click", () => {
    const text = dialog.querySelector("textarea") as HTMLTextAreaElement;
    text.value = embedSnippet(actions.embedLink());
    dialog.showModal();
    text.select();
  });
  csv.addEventListener("click", actions.csv);
  json.addEventListener("click", actions.json);
  return {
    element: h("div", { class: "share-bar" }, link, embed, csv, json, dialog),
    exports: [csv, json],
  };
}
