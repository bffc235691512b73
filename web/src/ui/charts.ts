// Charts without Chart.js in the page's first bundle: it comes in its own chunk
// (ui/chart-setup.ts), loaded when the first chart is drawn or, before that, once the page has
// shown its first rows (loadCharts), so that the first rows do not wait for it.
import type { Chart, ChartConfiguration } from "chart.js";

type ChartSetup = typeof import("./chart-setup");

let loaded: ChartSetup | null = null;
let loading: Promise<ChartSetup> | null = null;

// Starts loading Chart.js (once); resolves when it is ready.
export function loadCharts(): Promise<ChartSetup> {
  loading ??= import("./chart-setup").then((setup) => (loaded = setup));
  return loading;
}

// Draws `config` on a fresh canvas in `holder`, replacing any chart there: at once where
// Chart.js is loaded, else as soon as it is (draws keep their order). `onDrawn` gets the chart.
export function drawChart(
  holder: HTMLElement,
  config: ChartConfiguration,
  onDrawn: (chart: Chart) => void = () => undefined,
): void {
  if (loaded !== null) {
    onDrawn(loaded.drawChart(holder, config));
    return;
  }
  void loadCharts().then((setup) => onDrawn(setup.drawChart(holder, config)));
}
