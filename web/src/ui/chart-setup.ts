// Chart.js, with only the pieces these charts use (the rest is tree-shaken away). Loaded in its
// own chunk through ui/charts.ts, not with the page.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from "chart.js";

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);
Chart.defaults.font.family = getComputedStyle(document.documentElement).fontFamily;
Chart.defaults.font.size = 12;
Chart.defaults.color = "#374151";
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;

// Draws `config` on a fresh canvas in `holder`, replacing any chart there.
export function drawChart(holder: HTMLElement, config: ChartConfiguration): Chart {
  const previous = holder.querySelector("canvas");
  if (previous) Chart.getChart(previous)?.destroy();
  const canvas = document.createElement("canvas");
  holder.replaceChildren(canvas);
  return new Chart(canvas, config);
}
