// Numbers as people read them, with their units, in the page's language.
import { language } from "../i18n/i18n";

const locale = () => (language() === "zh" ? "zh-CN" : "en-US");

// One formatter per language and option, made on first use: building an Intl.NumberFormat
// costs far more than formatting with one (the model menu and a results table format
// hundreds of numbers, on the page's main thread while its first rows wait).
const formatters = new Map<string, Intl.NumberFormat>();

function formatter(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale()} ${JSON.stringify(options)}`;
  let made = formatters.get(key);
  if (made === undefined) {
    made = new Intl.NumberFormat(locale(), options);
    formatters.set(key, made);
  }
  return made;
}

// Makes the formatters the status line and the results table use first. The first
// Intl.NumberFormat of a page loads the browser's number-formatting data (100-350 ms in
// Chromium on the loaded 2-core test machine, 0.1 ms for the next one): the page calls this
// while it waits for the worker's first rows, so that the rows do not wait for it.
export function warmFormatters(): void {
  for (const digits of [0, 1, 2]) number(0, digits);
  count(1);
}

export function number(value: number, digits = 0): string {
  return formatter({ minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

export function integer(value: number): string {
  return number(value, 0);
}

export function percent(fraction: number, digits = 1): string {
  return `${number(fraction * 100, digits)}%`;
}

export function seconds(value: number): string {
  if (value === 0) return "0 s";
  if (value >= 1) return `${number(value, 2)} s`;
  if (value >= 1e-3) return `${number(value * 1e3, 1)} ms`;
  return `${number(value * 1e6, 0)} µs`;
}

export function gib(value: number): string {
  return `${number(value, 1)} GiB`;
}

// 68976648192 → "69 B" (billions; "690 亿" in Chinese), to three significant figures.
export function count(value: number): string {
  const units: [number, string][] =
    language() === "zh"
      ? [
          [1e8, " 亿"],
          [1e4, " 万"],
        ]
      : [
          [1e12, " T"],
          [1e9, " B"],
          [1e6, " M"],
          [1e3, " k"],
        ];
  const [scale, unit] = units.find(([scale]) => Math.abs(value) >= scale) ?? [1, ""];
  return `${formatter({ maximumSignificantDigits: 3 }).format(value / scale)}${unit}`;
}
