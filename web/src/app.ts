// The page's composition root: loads the module's catalogue, builds the page from ui/, keeps
// the URL in step with the state, and connects the buttons to the searches of state/runs.ts.
import { setLanguage, t } from "./i18n/i18n";
import { Catalogue } from "./state/catalogue";
import type { EarlySearch } from "./state/early-search";
import type { FieldError } from "./state/checker";
import { FirstRows, formWaitMs } from "./state/first-rows";
import { ModelTools } from "./state/model-tools";
import { moduleSchema } from "./state/module-schema";
import type { PageState } from "./state/page-state";
import { jobChanged, Runs, type Outcome } from "./state/runs";
import type { Store } from "./state/store";
import { encodeState } from "./state/url-state";
import { ParaplanClient, type Client } from "./worker/client";
import { mark } from "./worker/marks";
import { moduleInfo } from "./worker/module-info";
import { poolSize } from "./worker/pool";
import { loadCharts } from "./ui/charts";
import { afterNextPaint, h, nextTask } from "./ui/dom";
import { exportResults } from "./ui/export";
import { warmFormatters } from "./ui/format";
import { FieldErrors, shownError } from "./ui/field-errors";
import { header } from "./ui/header";
import { foldedForm, jobForm, viewTabs } from "./ui/layout";
import { SearchControls } from "./ui/job-sections";
import { searchProgressText } from "./ui/progress";
import { ScalingView } from "./ui/scaling-view";
import { shareBar } from "./ui/share-bar";
import { StrategiesView } from "./ui/strategies-view";
import { SweepView } from "./ui/sweep-view";

export class App {
  // The workers that share a series' points, one per core; the first is the search's own.
  private readonly pool: Client[];
  private readonly banner = h("div", { class: "banner", attrs: { role: "alert" } });
  private readonly errors = new FieldErrors(this.banner);
  private readonly controls = new SearchControls(() => this.runs.cancel());
  private readonly header: HTMLElement;
  private runs!: Runs;
  private models!: ModelTools;
  private strategies!: StrategiesView;
  private scaling!: ScalingView;
  private sweep!: SweepView;
  private exportButtons: HTMLButtonElement[] = [];
  // Where the form goes once built (after a run=1 link's first rows), and that signal.
  private readonly formSlot = h("div", { class: "form-slot", testid: "form-slot" });
  private readonly firstRows = new FirstRows();
  private formBuilt = false;
  // A run=1 link's results come into view once its first rows are drawn under the form.
  private revealWhenDrawn = false;
  private resultsSection: HTMLElement | null = null;
  private focusWhenBuilt = false; // a run refused the input before the form was there
  private version = "";

  // `client`: main.ts starts it, so that the module loads while this code does; `early`: the
  // search of a link with run=1, which main.ts started on it before this code loaded.
  constructor(
    private readonly store: Store,
    private readonly root: HTMLElement,
    private readonly client: ParaplanClient = new ParaplanClient(),
    private readonly early: EarlySearch | null = null,
  ) {
    // First of all listeners, so that the others render in the new language.
    store.subscribe((state, previous) => {
      if (state.lang !== previous.lang) setLanguage(state.lang);
    });
    this.banner.hidden = true;
    this.header = header(store, () => this.link({ embed: false }));
    this.pool = [
      client,
      ...Array.from(
        { length: poolSize(navigator.hardwareConcurrency) - 1 },
        () => new ParaplanClient(),
      ),
    ];
  }

  async start(): Promise<void> {
    const state = this.store.get();
    setLanguage(state.lang);
    document.body.classList.toggle("embed", state.embed);
    const loading = h("p", { class: "loading", i18n: "app.loading" });
    this.root.replaceChildren(this.header, this.banner, loading);
    // The header was built before the language was set (in the constructor): translate it now,
    // or a link with lang=zh keeps an English tagline.
    setLanguage(state.lang, this.root);
    let catalogue: Catalogue;
    try {
      // The form is drawn from the module's catalogue as the build wrote it beside the module
      // (generated/info.json), without waiting for the worker; a search waits for it.
      const info = await moduleInfo(this.client);
      catalogue = new Catalogue(info.presets);
      this.runs = new Runs(this.client, catalogue, moduleSchema(info), this.pool, this.early);
      this.models = new ModelTools(this.client, moduleSchema(info).limits);
      this.version = info.version;
      this.buildResults();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.errors.show([{ field: null, text: t("app.loadFailed", { message }) }]);
      return;
    }
    window.history.replaceState(null, "", `?${encodeState(this.store.get())}`);
    this.store.subscribe((next, previous) => this.changed(next, previous));
    this.runs.subscribe(() => this.runsChanged());
    this.runsChanged();
    if (state.ran) {
      this.revealWhenDrawn = true;
      void this.search();
      // While the worker searches: in a task of its own, after the frame is painted.
      setTimeout(warmFormatters, 0);
    }
    if (state.estimate) void this.strategies.estimate.run();
    // Chart.js is not in the first bundle (ui/charts.ts): it loads once the first rows are
    // shown, or now where no search runs.
    if (!state.ran) void loadCharts();
    // A search that runs at once has its first rows drawn before the form is built (issue 30
    // item 8), or the form waits until the page's deadline for them (state/first-rows.ts).
    if (state.ran) {
      await this.firstRows.wait(formWaitMs(performance.now()));
      await afterNextPaint();
    }
    await this.buildForm(catalogue);
  }

  // The results' frame (tabs, share bar, the views) in the document, with an empty slot where
  // the form goes: a search's first rows are drawn without waiting for the form.
  private buildResults(): void {
    const context = { store: this.store, errors: this.errors, models: this.models };
    const share = shareBar({
      link: () => this.link({ embed: false }),
      embedLink: () => this.link({ embed: true, ran: true }),
      csv: () => this.export("csv"),
      json: () => this.export("json"),
    });
    this.exportButtons = share.exports;
    this.strategies = new StrategiesView(this.store, this.runs, () => this.errors.focusFirst());
    this.scaling = new ScalingView(
      context,
      () => void this.runScaling(),
      () => this.runs.cancel(),
    );
    this.sweep = new SweepView(
      context,
      () => void this.runSweep(),
      () => this.runs.cancel(),
    );
    const views = {
      strategies: this.strategies.element,
      scaling: this.scaling.element,
      sweep: this.sweep.element,
    };
    const results = h(
      "section",
      { class: "results-section", testid: "results-section" },
      h("div", { class: "results-toolbar" }, viewTabs(this.store, views), share.element),
      ...Object.values(views),
    );
    this.resultsSection = results;
    this.root.replaceChildren(this.header, this.banner, this.formSlot, results);
    mark("results-drawn");
  }

  // The job form, in its slot above the results (ui/layout.ts).
  private async buildForm(catalogue: Catalogue): Promise<void> {
    const context = { store: this.store, errors: this.errors, models: this.models };
    const { form, steps } = jobForm(context, catalogue, this.controls.element, () => {
      void this.search();
    });
    const inputs = this.store.get().embed ? foldedForm(this.store, form) : form;
    this.formSlot.replaceWith(inputs);
    // Where the rows are on screen, at once (the worker's later reports would otherwise come
    // between the sections and hold the form back); where they are not, a section per task.
    const inSteps = !this.firstRows.drawn;
    for (const [index, step] of steps.entries()) {
      if (inSteps && index > 0) await nextTask();
      step();
    }
    this.formBuilt = true;
    // The fields are registered now: the form's mistakes show beside them.
    this.showErrors();
    if (this.focusWhenBuilt) this.errors.focusFirst();
    this.revealResults();
    mark("form-drawn");
  }

  private export(format: "csv" | "json"): void {
    if (this.runs.last === null) return;
    exportResults(format, this.runs.last, this.version, this.link({ embed: false }));
  }

  private link(flags: Partial<Pick<PageState, "embed" | "ran">>): string {
    const url = new URL(window.location.href);
    url.search = encodeState({ ...this.store.get(), ...flags }).toString();
    return url.toString();
  }

  private changed(state: PageState, previous: PageState): void {
    window.history.replaceState(null, "", `?${encodeState(state)}`);
    if (state.lang !== previous.lang) {
      this.scaling.render();
      this.sweep.render();
    }
    if (jobChanged(state, previous)) this.runs.clearModuleError();
    this.runsChanged();
  }

  // Shows how the searches stand: the buttons, the status line, and the form's mistakes.
  private runsChanged(): void {
    const { busy, last } = this.runs;
    this.controls.setBusy(busy);
    this.scaling.runButton.disabled = busy;
    this.sweep.runButton.disabled = busy;
    for (const button of this.exportButtons) button.disabled = last === null;
    this.strategies.renderStatus();
    this.showErrors();
  }

  // The form's mistakes (or `mistakes`, when a run found them) and the module's error.
  private showErrors(mistakes?: FieldError[]): void {
    const request = this.runs.request(this.store.get());
    const shown = (mistakes ?? (request.ok ? [] : request.errors)).map(shownError);
    const { moduleError } = this.runs;
    this.errors.show(moduleError ? [...shown, moduleError] : shown);
  }

  async search(): Promise<void> {
    if (this.runs.busy) return;
    const progress = this.controls.progress;
    progress.start(t("search.running"));
    const outcome = await this.runs.search(this.store.get(), (update) => {
      progress.update(update.search.fraction, searchProgressText(update));
      this.strategies.showProvisional();
      if (this.runs.provisional !== null) {
        mark("first-rows-drawn");
        this.firstRows.markDrawn();
        this.revealResults();
        void loadCharts();
      }
    });
    progress.finish();
    this.firstRows.markDrawn();
    this.afterRun(outcome);
    if (outcome.status !== "done") return this.strategies.endProvisional(false);
    this.strategies.showResults();
    this.revealResults();
    mark("first-rows-drawn");
    void loadCharts();
    const ranks = this.runs.last?.result.strategies.map((ranked) => String(ranked.rank)) ?? [];
    this.store.update((state) => {
      state.ran = true;
      if (!ranks.includes(state.selected)) state.selected = "";
    });
    this.strategies.showSelected();
  }

  // A run=1 link's rows are drawn first and the form then above them, which at 1440×900 pushes
  // them below the fold: once both are there, the results scroll to the top of the window,
  // once, unless the reader has already scrolled or is typing in a field (issue 30).
  private revealResults(): void {
    const results = this.resultsSection;
    const rows = this.runs.provisional !== null || this.runs.last !== null;
    if (!this.revealWhenDrawn || !this.formBuilt || !rows || results === null) return;
    this.revealWhenDrawn = false;
    if (window.scrollY > 0 || isEditing(document.activeElement)) return;
    results.scrollIntoView({ block: "start" });
  }

  private async runScaling(): Promise<void> {
    this.afterRun(await this.scaling.run(this.runs, this.store.get()));
  }

  private async runSweep(): Promise<void> {
    this.afterRun(await this.sweep.run(this.runs, this.store.get()));
  }

  // Mistakes in the input, or the module's refusal, take the focus to their field.
  private afterRun(outcome: Outcome): void {
    if (outcome.status === "invalid") this.showErrors(outcome.errors);
    if (outcome.status !== "invalid" && outcome.status !== "failed") return;
    this.focusWhenBuilt = !this.formBuilt;
    this.errors.focusFirst();
  }
}

// Whether `element` takes typing: a text field, a list or an editable element.
function isEditing(element: Element | null): boolean {
  if (element === null) return false;
  if (element instanceof HTMLElement && element.isContentEditable) return true;
  return ["INPUT", "TEXTAREA", "SELECT"].includes(element.tagName);
}
