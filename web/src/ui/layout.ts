// The page's frame: the job form, its folded form in an embed, and the tabs between the
// strategies and the scaling view.
import { t } from "../i18n/i18n";
import type { Catalogue } from "../state/catalogue";
import { VIEWS, type PageState, type View } from "../state/page-state";
import type { Store } from "../state/store";
import { clusterSection } from "./cluster-section";
import { h } from "./dom";
import type { FormContext } from "./fields";
import { searchSection, trainingSection } from "./job-sections";
import { modelSection } from "./model-section";
import { pinnedSection } from "./pinned-section";

// The form of the job; `controls` (the Search button and its progress) close the search section.
export function jobForm(
  context: FormContext,
  catalogue: Catalogue,
  controls: HTMLElement,
  onSubmit: () => void,
): HTMLElement {
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return h(
    "form",
    { class: "job", attrs: { novalidate: "" }, on: { submit } },
    h(
      "div",
      { class: "job-grid" },
      modelSection(context, catalogue),
      clusterSection(context, catalogue),
      trainingSection(context),
      searchSection(context, controls),
    ),
    pinnedSection(context),
  );
}

// In an embed, the form folds away behind a one-line description of the job.
export function foldedForm(store: Store, form: HTMLElement): HTMLElement {
  const job = h("span", { class: "job-summary" });
  const describe = (state: PageState) => {
    job.textContent = [
      state.model,
      state.cluster,
      t("embed.gpus", { n: state.numGpus }),
      t("embed.batch", { n: state.globalBatchSize }),
      t("embed.seq", { n: state.seqLength }),
      state.precision,
    ].join(" · ");
  };
  describe(store.get());
  store.subscribe(describe);
  return h(
    "details",
    { class: "inputs" },
    h("summary", {}, h("span", { i18n: "section.inputs" }), job),
    form,
  );
}

// The tabs, and the view of each; the state's `view` shows one and hides the others.
export function viewTabs(store: Store, views: Record<View, HTMLElement>): HTMLElement {
  const tabs = VIEWS.map((view) =>
    h("button", {
      class: "tab",
      i18n: `view.${view}`,
      testid: `tab-${view}`,
      attrs: { type: "button", role: "tab", "data-view": view },
      on: { click: () => store.update((state) => (state.view = view)) },
    }),
  );
  const show = ({ view }: PageState) => {
    for (const name of VIEWS) views[name].hidden = name !== view;
    for (const tab of tabs) tab.setAttribute("aria-selected", String(tab.dataset.view === view));
  };
  show(store.get());
  store.subscribe((state, previous) => {
    if (state.view !== previous.view) show(state);
  });
  return h("div", { class: "tabs", attrs: { role: "tablist" } }, ...tabs);
}
