// The training job, the search's own options, and the Search button with its progress.
import { t } from "../i18n/i18n";
import { FRAMEWORKS, PRECISIONS } from "../state/page-state";
import { h } from "./dom";
import {
  checkboxField,
  section,
  selectField,
  stateBinding,
  textField,
  type FormContext,
} from "./fields";
import { ProgressBar } from "./progress";

const bind = stateBinding;

export function trainingSection(context: FormContext): HTMLElement {
  return section(
    "section.training",
    textField(context, bind("globalBatchSize"), {
      label: "training.globalBatchSize",
      testid: "global-batch-size",
      unit: "training.globalBatchSizeUnit",
      numeric: true,
    }),
    textField(context, bind("seqLength"), {
      label: "training.seqLength",
      testid: "seq-length",
      unit: "training.seqLengthUnit",
      numeric: true,
    }),
    selectField(context, bind("precision"), {
      label: "training.precision",
      choices: PRECISIONS.map((value) => ({ value })),
    }),
    selectField(context, bind("framework"), {
      label: "training.framework",
      testid: "framework-select",
      hint: "training.frameworkHint",
      choices: FRAMEWORKS.map((value) => ({ value })),
    }),
  );
}

// The search options and the button; `controls` holds the progress bar.
export function searchSection(context: FormContext, controls: HTMLElement): HTMLElement {
  return section(
    "section.search",
    h(
      "div",
      { class: "grid-2 search-options" },
      textField(context, bind("top"), { label: "search.top", numeric: true }),
      textField(context, bind("timeBudget"), {
        label: "search.timeBudget",
        unit: "search.seconds",
        numeric: true,
      }),
      textField(context, bind("memoryMargin"), {
        label: "search.memoryMargin",
        testid: "memory-margin",
        unit: "search.memoryMarginUnit",
        hint: "search.memoryMarginHint",
        placeholder: "search.memoryMarginPlaceholder",
      }),
    ),
    checkboxField(
      context,
      "search.allowAtRisk",
      (state) => state.allowAtRisk,
      (state, value) => {
        state.allowAtRisk = value;
      },
    ),
    checkboxField(
      context,
      "search.tpAcrossNodes",
      (state) => state.tpAcrossNodes,
      (state, value) => {
        state.tpAcrossNodes = value;
      },
    ),
    controls,
  );
}

// The form's submit button, "Searching…" and disabled while busy, and the search's progress.
export class SearchControls {
  readonly element: HTMLElement;
  readonly progress: ProgressBar;
  private readonly button = h("button", {
    class: "primary search",
    i18n: "search.run",
    testid: "search-button",
    attrs: { type: "submit" },
  });

  constructor(onCancel: () => void) {
    this.progress = new ProgressBar(onCancel);
    this.element = h("div", { class: "search-controls" }, this.button, this.progress.element);
  }

  setBusy(busy: boolean): void {
    this.button.disabled = busy;
    this.button.textContent = t(busy ? "search.running" : "search.run");
  }
}
