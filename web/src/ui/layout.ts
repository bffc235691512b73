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

// The form of the job, built a section at a time: `form` is its frame (an empty grid), each of
// `steps` adds one section. The page runs one step per task, so that between sections the
// browser paints and hands over the worker's messages (a search's rows): building the whole
// form, a few hundred ms of the main thread, never holds the rows back for more than a section.
// `controls` (the Search button and its progress) close the search section.
export interface FormBuild {
  form: HTMLElement;
  steps: (() => void)[];
}

export function jobForm(
  context: FormContext,
  catalogue: Catalogue,
  controls: HTMLElement,
  onSubmit: () => void,
): FormBuild {
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    onSubmit();
  };
  const grid = h("div", { class: "job-grid" });
  const form = h("form", { class: "job", attrs: { novalidate: "" }, on: { submit } }, grid);
  const sections = [
    () => modelSection(context, catalogue),
    () => clusterSection(context, catalogue),
    () => trainingSection(context),
    () => searchSection(context, controls),
  ];
  return {
    form,
    steps: [
      ...sections.map((section) => () => grid.append(section())),
      () => form.append(pinnedSection(context)),
    ],
  };
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
