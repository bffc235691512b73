// The page: builds the form and the results, keeps the URL in step with the
// state, and runs searches in the worker.
import { isMessageKey, setLanguage, t } from "./i18n/i18n";
import type { RankedStrategy, SearchRequest, SearchResult } from "./paraplan/types";
import { resultsCsv, resultsJson } from "./export";
import { Catalogue } from "./state/catalogue";
import { encodeState } from "./state/url-state";
import { buildSearchRequest, fieldOfModuleError, type FieldError } from "./state/scenario";
import { gpuCounts, scaledRequest } from "./state/scaling";
import { scenarioOfStrategy } from "./state/strategy-scenario";
import type { PageState } from "./state/page-state";
import type { Store } from "./state/store";
import { parseInteger, parseDecimal } from "./state/numbers";
import { ParaplanClient } from "./worker/client";
import { CancelledError } from "./worker/errors";
import type { Progress } from "./worker/protocol";
import { download } from "./ui/clipboard";
import { clusterSection } from "./ui/cluster-section";
import { DetailView } from "./ui/detail-view";
import { h } from "./ui/dom";
import { FieldErrors, type ShownError } from "./ui/field-errors";
import type { FormContext } from "./ui/fields";
import { integer, percent, seconds } from "./ui/format";
import { header } from "./ui/header";
import { searchSection, trainingSection } from "./ui/job-sections";
import { modelSection } from "./ui/model-section";
import { pinnedSection } from "./ui/pinned-section";
import { ProgressBar } from "./ui/progress";
import { ResultsTable } from "./ui/results-table";
import { ScalingView, type ScalingPoint } from "./ui/scaling-view";
import { shareBar } from "./ui/share-bar";

interface Run {
  request: SearchRequest;
  result: SearchResult;
}

export class App {
  private readonly client = new ParaplanClient();
  private readonly banner = h("div", {
    class: "banner",
    attrs: { role: "alert" },
  });
  private readonly errors = new FieldErrors(this.banner);
  private readonly context: FormContext;
  private readonly status = h("div", {
    class: "status",
    testid: "search-status",
  });
  private readonly searchButton = h("button", {
    class: "primary search",
    i18n: "search.run",
    testid: "search-button",
    attrs: { type: "submit" },
  });
  private readonly header: HTMLElement;
  private readonly searchProgress = new ProgressBar(() => this.client.cancel());
  private readonly scalingProgress = new ProgressBar(() => this.client.cancel());
  private readonly table: ResultsTable;
  private readonly detail: DetailView;
  private scaling!: ScalingView;
  private catalogue!: Catalogue;
  private version = "";
  private run: Run | null = null;
  private moduleErrors: ShownError[] = [];
  private statusNote: (() => string) | null = null;
  private busy = false;
  private exportButtons: HTMLButtonElement[] = [];

  constructor(
    private readonly store: Store,
    private readonly root: HTMLElement,
  ) {
    this.context = { store, errors: this.errors };
    // First of all listeners, so that the others render in the new language.
    store.subscribe((state, previous) => {
      if (state.lang !== previous.lang) setLanguage(state.lang);
    });
    this.table = new ResultsTable(store);
    this.detail = new DetailView(() => store.update((state) => (state.selected = "")));
    this.banner.hidden = true;
    this.header = header(store, () => this.fullPageLink());
  }

  async start(): Promise<void> {
    const state = this.store.get();
    setLanguage(state.lang);
    document.body.classList.toggle("embed", state.embed);
    this.root.replaceChildren(
      this.header,
      this.banner,
      h("p", { class: "loading", i18n: "app.loading" }),
    );
    try {
      const info = await this.client.call("info", null);
      this.catalogue = new Catalogue(info.presets);
      this.version = info.version;
    } catch (error) {
      this.errors.show([
        {
          field: null,
          text: t("app.loadFailed", { message: (error as Error).message }),
        },
      ]);
      return;
    }
    this.build();
    window.history.replaceState(null, "", `?${encodeState(this.store.get())}`);
    this.store.subscribe((next, previous) => this.changed(next, previous));
    this.validate();
    if (state.ran) void this.search();
  }

  private build(): void {
    const context = this.context;
    const form = h(
      "form",
      {
        class: "job",
        attrs: { novalidate: "" },
        on: {
          submit: (event) => {
            event.preventDefault();
            void this.search();
          },
        },
      },
      h(
        "div",
        { class: "job-grid" },
        modelSection(context, this.catalogue),
        clusterSection(context, this.catalogue),
        trainingSection(context),
        searchSection(
          context,
          h("div", { class: "search-controls" }, this.searchButton, this.searchProgress.element),
        ),
      ),
      pinnedSection(context),
    );
    const inputs = this.store.get().embed ? this.collapsedInputs(form) : form;
    const share = shareBar({
      link: () => this.fullPageLink(),
      embedLink: () => this.link({ embed: true, ran: true }),
      csv: () => this.export("csv"),
      json: () => this.export("json"),
    });
    this.exportButtons = share.exports;
    this.scaling = new ScalingView(
      context,
      () => void this.runScaling(),
      this.scalingProgress.element,
    );
    const tabs = (["strategies", "scaling"] as const).map((view) =>
      h("button", {
        class: "tab",
        i18n: `view.${view}`,
        testid: `tab-${view}`,
        attrs: { type: "button", role: "tab", "data-view": view },
        on: { click: () => this.store.update((state) => (state.view = view)) },
      }),
    );
    const strategies = h(
      "div",
      { class: "view-strategies" },
      this.status,
      this.table.element,
      this.detail.element,
    );
    const results = h(
      "section",
      { class: "results-section" },
      h(
        "div",
        { class: "results-toolbar" },
        h("div", { class: "tabs", attrs: { role: "tablist" } }, ...tabs),
        share.element,
      ),
      strategies,
      this.scaling.element,
    );
    this.root.replaceChildren(this.header, this.banner, inputs, results);
    this.showView();
    this.showStatus();
  }

  private export(format: "csv" | "json"): void {
    if (this.run === null) return;
    const { request, result } = this.run;
    if (format === "csv") {
      download("paraplan-strategies.csv", "text/csv", resultsCsv(result));
    } else {
      const json = resultsJson(request, result, this.version, this.fullPageLink());
      download("paraplan-strategies.json", "application/json", json);
    }
  }

  // In an embed, the form folds away behind a one-line description of the job.
  private collapsedInputs(form: HTMLElement): HTMLElement {
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
    describe(this.store.get());
    this.store.subscribe(describe);
    return h(
      "details",
      { class: "inputs" },
      h("summary", {}, h("span", { i18n: "section.inputs" }), job),
      form,
    );
  }

  private link(flags: Partial<Pick<PageState, "embed" | "ran">>): string {
    const url = new URL(window.location.href);
    url.search = encodeState({ ...this.store.get(), ...flags }).toString();
    return url.toString();
  }

  private fullPageLink(): string {
    return this.link({ embed: false });
  }

  private changed(state: PageState, previous: PageState): void {
    window.history.replaceState(null, "", `?${encodeState(state)}`);
    if (state.lang !== previous.lang) {
      this.detail.render();
      this.scaling.render();
    }
    if (state.view !== previous.view) this.showView();
    if (state.selected !== previous.selected) this.showSelected();
    if (this.inputsChanged(state, previous)) this.moduleErrors = [];
    this.validate();
    this.showStatus();
  }

  private inputsChanged(state: PageState, previous: PageState): boolean {
    const job = (s: PageState) =>
      JSON.stringify({
        ...s,
        lang: "",
        view: "",
        sort: "",
        selected: "",
        ran: false,
      });
    return job(state) !== job(previous);
  }

  private showView(): void {
    const view = this.store.get().view;
    this.root.querySelector<HTMLElement>(".view-strategies")!.hidden = view !== "strategies";
    this.scaling.element.hidden = view !== "scaling";
    for (const tab of this.root.querySelectorAll<HTMLElement>(".tab")) {
      tab.setAttribute("aria-selected", String(tab.dataset.view === view));
    }
  }

  // Checks the form and shows what is wrong, with `extra` errors found elsewhere;
  // returns the search request when the form is valid.
  private validate(extra: ShownError[] = []): SearchRequest | null {
    const built = buildSearchRequest(this.store.get(), this.catalogue);
    const errors: ShownError[] = built.ok ? [] : built.errors.map((error) => this.describe(error));
    this.errors.show([...errors, ...this.moduleErrors, ...extra]);
    return built.ok ? built.value : null;
  }

  private describe(error: FieldError): ShownError {
    return {
      field: error.field,
      text: isMessageKey(error.key) ? t(error.key, error.params) : error.key,
    };
  }

  private showModuleError(message: string): void {
    this.moduleErrors = [{ field: fieldOfModuleError(message), text: message }];
    this.validate();
    this.errors.focusFirst();
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.searchButton.disabled = busy;
    this.scaling.runButton.disabled = busy;
    this.searchButton.textContent = t(busy ? "search.running" : "search.run");
  }

  private progressText(progress: Progress): string {
    const { search } = progress;
    const params = {
      percent: percent(search.fraction, 0),
      evaluated: integer(search.evaluated),
      best: seconds(search.best_iteration_time_s),
    };
    return t(
      search.best_iteration_time_s > 0 ? "search.progress" : "search.progressNoBest",
      params,
    );
  }

  async search(): Promise<void> {
    if (this.busy) return;
    this.moduleErrors = [];
    const request = this.validate();
    if (request === null) {
      this.errors.focusFirst();
      return;
    }
    this.setBusy(true);
    this.statusNote = null;
    this.searchProgress.start(t("search.running"));
    try {
      const result = await this.client.call("search", request, {
        onProgress: (progress) =>
          this.searchProgress.update(progress.search.fraction, this.progressText(progress)),
      });
      this.run = { request, result };
      this.table.show(result.strategies);
      this.detail.hide();
      this.store.update((state) => {
        state.ran = true;
        if (!result.strategies.some((ranked) => String(ranked.rank) === state.selected))
          state.selected = "";
      });
      this.showSelected();
    } catch (error) {
      if (error instanceof CancelledError) this.statusNote = () => t("search.cancelled");
      else this.showModuleError((error as Error).message);
    } finally {
      this.searchProgress.finish();
      this.setBusy(false);
      this.showStatus();
    }
  }

  private showStatus(): void {
    for (const button of this.exportButtons) button.disabled = this.run === null;
    const parts: HTMLElement[] = [];
    const note = this.statusNote?.();
    if (note) parts.push(h("p", { class: "note", text: note }));
    if (this.run === null) {
      if (!note)
        parts.push(
          h("p", { class: "strong", text: t("search.prompt") }),
          h("p", { class: "muted", text: t("app.about") }),
        );
      this.status.replaceChildren(...parts);
      return;
    }
    const { result, request } = this.run;
    const { stats } = result;
    const current = buildSearchRequest(this.store.get(), this.catalogue);
    if (!current.ok || JSON.stringify(current.value) !== JSON.stringify(request)) {
      parts.push(h("p", { class: "note stale", text: t("search.stale") }));
    }
    parts.push(
      h("p", {
        class: "muted",
        text: t("search.stats", {
          shown: result.strategies.length,
          feasible: integer(stats.feasible),
          evaluated: integer(stats.evaluated),
          pruned: integer(stats.pruned),
          seconds: seconds(stats.seconds),
        }),
      }),
    );
    if (!stats.complete)
      parts.push(
        h("p", {
          class: "note",
          text: t("search.incomplete", { reason: stats.stopped }),
        }),
      );
    if (result.strategies.length === 0) {
      parts.push(
        h(
          "div",
          { class: "diagnosis", testid: "diagnosis" },
          h("p", { class: "strong", text: t("search.nothingFeasible") }),
          h("ul", {}, ...result.diagnosis.map((line) => h("li", { text: line }))),
        ),
      );
    }
    this.status.replaceChildren(...parts);
  }

  private showSelected(): void {
    const rank = this.store.get().selected;
    const ranked = this.run?.result.strategies.find((candidate) => String(candidate.rank) === rank);
    if (ranked === undefined || this.run === null) {
      this.detail.hide();
      return;
    }
    if (this.detail.rank === ranked.rank) return;
    this.detail.show(ranked, ranked.estimate.feasible ? this.trace(ranked) : null);
  }

  private trace(ranked: RankedStrategy) {
    const run = this.run!;
    const traced = this.client.call("trace", scenarioOfStrategy(run.request.scenario, ranked));
    traced.catch((error: Error) => {
      if (!(error instanceof CancelledError)) this.showModuleError(error.message);
    });
    return traced;
  }

  private async runScaling(): Promise<void> {
    if (this.busy) return;
    const state = this.store.get();
    this.moduleErrors = [];
    const request = this.validate();
    const from = parseInteger(state.scaleFrom);
    const to = parseInteger(state.scaleTo);
    const budget = parseDecimal(state.scaleBudget);
    const errors: ShownError[] = [];
    if (from === null || from < 1 || from > 1 << 20)
      errors.push({
        field: "scaleFrom",
        text: t("error.integer", { min: 1, max: 1 << 20 }),
      });
    if (to === null || to < 1 || to > 1 << 20)
      errors.push({
        field: "scaleTo",
        text: t("error.integer", { min: 1, max: 1 << 20 }),
      });
    else if (from !== null && to < from)
      errors.push({ field: "scaleTo", text: t("error.scaleRange") });
    if (budget === null || budget < 0.5 || budget > 120)
      errors.push({
        field: "scaleBudget",
        text: t("error.number", { min: 0.5, max: 120 }),
      });
    if (request === null || errors.length > 0) {
      this.validate(errors);
      this.errors.focusFirst();
      return;
    }
    const counts = gpuCounts(from!, to!);
    const points: ScalingPoint[] = counts.map((numGpus) => ({
      numGpus,
      result: null,
    }));
    this.scaling.show(points);
    this.setBusy(true);
    this.scalingProgress.start(t("search.running"));
    try {
      await this.client.call(
        "searchSeries",
        counts.map((n) => scaledRequest(request, n, budget!)),
        {
          onProgress: ({ step, steps, search }) =>
            this.scalingProgress.update(
              (step + search.fraction) / steps,
              t("scaling.running", {
                step: step + 1,
                steps,
                gpus: integer(counts[step]),
              }),
            ),
          onPartial: (index, result) => {
            points[index].result = result;
            this.scaling.show(points);
          },
        },
      );
    } catch (error) {
      if (!(error instanceof CancelledError)) this.showModuleError((error as Error).message);
    } finally {
      this.scalingProgress.finish();
      this.setBusy(false);
    }
  }
}
