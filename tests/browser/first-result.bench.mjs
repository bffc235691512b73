// Benchmark (not a test): time from navigation to the first row for a shared link that runs a
// search (run=1), in fresh browser contexts (cold HTTP cache), on the production build served
// from a sub-path by the plain static server. Prints each run and the medians in ms: the first
// provisional row (the best so far while the search runs), the final rows (the exact ranking,
// or the diagnosis where nothing fits), and the first row of either kind.
//   cd tests && node browser/first-result.bench.mjs [RUNS] [--models] [--startup] [--only=TEXT]
//   [--first] [--compare=DIR]
// (PARAPLAN_DIST=DIR for another build). --models adds every preset model of the page's
// catalogue on the page's default job (256 A800, batch 512, 4096 tokens); --gpus=N puts those
// jobs on N A800 with the batch scaled with them (2 sequences per GPU, as bench/bench.cpp's
// PARAPLAN_BENCH_FIRST_ROWS=N and tests/wasm/bench.mjs --first-rows=N), --gpus=256,512,1024 on
// each of those sizes (issue 30 item 8: every preset model up to 1024 GPUs). The last line
// counts the jobs whose first row came later than the 1 s target.
// Also prints when the form was drawn (the Search button present), to show where the time goes;
// --startup prints each job's start-up timeline (the page's and the worker's marks and fetches);
// --only=TEXT keeps the jobs whose name contains TEXT; --first ends each run at its first row
// (the final rows' column then lists only the runs that ended with them); --compare=DIR also
// measures the build in DIR, in turns with this one, and prints its rows marked [compared];
// --click=MS opens each link without run=1, waits MS after the form is drawn (a user reading
// it) and clicks Search: its times are then ms since the click (the worker's warm-up,
// web/src/worker/warm-up.ts, has had those MS).
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./launch.mjs";
import { serveDirectory } from "./static-server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = process.env.PARAPLAN_DIST ?? join(HERE, "..", "..", "web", "dist");
const ARGS = process.argv.slice(2);
const RUNS = Number(ARGS.find((arg) => /^\d+$/.test(arg)) ?? 7);
const MODELS = ARGS.includes("--models");
const STARTUP = ARGS.includes("--startup");
// Each run ends at its first row (provisional or final) rather than at the final rows.
const FIRST = ARGS.includes("--first");
const CLICK = ARGS.find((arg) => arg.startsWith("--click="))?.slice(8);
const SIZES = (ARGS.find((arg) => arg.startsWith("--gpus="))?.slice(7) ?? "256")
  .split(",")
  .map(Number);
const defaultJob = (gpus) =>
  `gpu-infos=a800:${gpus}&num-gpus=${gpus}&global-batch-size=${2 * gpus}&seq-length=4096&precision=bf16`;
// The first rows' target (web/src/state/first-rows.ts FIRST_ROWS_TARGET_MS).
const TARGET_MS = 1000;
// Each job's median time to its first row, by name.
const firstRowMedians = {};
const LINKS = {
  "default job (llama2-70b, a800:256)":
    "lang=en&model=llama2-70b&gpu-infos=a800:256&num-gpus=256&global-batch-size=512&seq-length=4096&precision=bf16&run=1",
  "AIAK mixed (a800:128,h800:160)":
    "lang=en&model=llama2-70b&gpu-infos=a800:128,h800:160&num-gpus=256&global-batch-size=512&seq-length=4096&precision=bf16&run=1",
  // The audit's MoE jobs (shared/reference/web-audit-2.md).
  "DeepSeek-V3, h800:512":
    "lang=en&model=deepseek-v3&gpu-infos=h800:512&num-gpus=512&global-batch-size=4096&seq-length=4096&run=1",
  "Qwen3-30B-A3B, h100:64":
    "lang=en&model=qwen3-30b-a3b&gpu-infos=h100:64&num-gpus=64&global-batch-size=512&seq-length=4096&run=1",
  // The preset whose search on the default job takes longest (10 s natively, 106,265
  // strategies evaluated; kimi-k2 next at 6.6 s).
  "DeepSeek-V3, a800:256 (slowest preset on the default job)":
    "lang=en&model=deepseek-v3&gpu-infos=a800:256&num-gpus=256&global-batch-size=512&seq-length=4096&precision=bf16&run=1",
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const ms = (value) => (value === undefined ? "-" : value.toFixed(0));

// CPU ms (user and system) of the processes this script started, the browser's included (its
// renderers, the page's worker threads and V8's compile threads, on Linux from /proc): the work
// to a first row, which a shared machine's load does not inflate as it does the wall time.
function browserCpuMs() {
  const parents = new Map();
  const cpu = new Map();
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      // Fields after the command's closing parenthesis: state ppid ... utime (14) stime (15).
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(pid), Number(fields[1]));
      cpu.set(Number(pid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // The process ended while /proc was read.
    }
  }
  const ours = (pid) => {
    for (let at = pid; at > 1; at = parents.get(at) ?? 0)
      if (at === process.pid) return true;
    return false;
  };
  let ticks = 0;
  for (const [pid, used] of cpu)
    if (pid !== process.pid && ours(pid)) ticks += used;
  // Clock ticks of 10 ms (USER_HZ 100 on Linux).
  return ticks * 10;
}

// How good the first provisional rows were: their #1's tokens/s/GPU against the final #1's.
const quality = (runs) => {
  const ratios = runs
    .filter((marks) => marks.provisionalTokens > 0 && marks.finalTokens > 0)
    .map((marks) => (100 * marks.provisionalTokens) / marks.finalTokens);
  return ratios.length ? `${median(ratios).toFixed(0)}%` : "-";
};

// Marks taken in the page, in ms since navigation started (performance.now()).
function observe() {
  const marks = (window.__marks = {});
  // The page's main thread's long tasks (over 50 ms), for the start-up timeline.
  const longTasks = (window.__longTasks = []);
  new PerformanceObserver((list) => {
    for (const task of list.getEntries())
      longTasks.push([task.startTime, task.duration]);
  }).observe({ type: "longtask", buffered: true });
  const visible = (id) =>
    [...document.querySelectorAll(`[data-testid="${id}"]`)].some(
      (element) => element.offsetParent !== null,
    );
  new MutationObserver(() => {
    const now = performance.now();
    if (marks.form === undefined && visible("search-button")) marks.form = now;
    // The first row's tokens/s/GPU where it was first shown.
    const tokens = (id) =>
      Number(
        document
          .querySelector(`[data-testid="${id}"] td.col-tokens`)
          ?.textContent.replace(/,/g, ""),
      );
    if (marks.provisional === undefined && visible("provisional-row")) {
      marks.provisional = now;
      window.__paraplanFirstRow?.();
      marks.provisionalTokens = tokens("provisional-row");
      // The search's own time at that report, from the note ("… evaluated in 123.4 ms"): the
      // search started that long before.
      const took = document
        .querySelector('[data-testid="provisional-note"]')
        ?.textContent.match(/in ([\d.,]+) (ms|s)\b/);
      if (took) {
        const value = Number(took[1].replace(/,/g, ""));
        marks.searchMs = took[2] === "ms" ? value : value * 1000;
        marks.searching = now - marks.searchMs;
      }
    }
    if (
      marks.final === undefined &&
      (visible("result-row") || visible("diagnosis"))
    ) {
      marks.final = now;
      window.__paraplanFirstRow?.();
      marks.finalTokens = tokens("result-row");
    }
  }).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
  });
}

// A context's start-up timeline: its User Timing marks ("paraplan:<name>", web/src/worker/
// marks.ts) and the ends of its resource fetches, in ms since that context's timeOrigin.
function timeline() {
  const base = (name) => name.replace(/^.*\//, "").replace(/-[\w-]{8}\./, ".");
  const entries = {};
  for (const mark of performance.getEntriesByType("mark")) {
    if (mark.name.startsWith("paraplan:"))
      entries[mark.name.slice(9)] = mark.startTime;
  }
  for (const resource of performance.getEntriesByType("resource")) {
    entries[`fetched ${base(resource.name)}`] = resource.responseEnd;
  }
  const navigation = performance.getEntriesByType("navigation")[0];
  if (navigation) {
    entries["html fetched"] = navigation.responseEnd;
    entries["DOMContentLoaded"] = navigation.domContentLoadedEventEnd;
  }
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  if (paint) entries["first contentful paint"] = paint.startTime;
  return { origin: performance.timeOrigin, entries };
}

// The page's and the search worker's timelines on the page's clock (ms since navigation).
async function startup(page) {
  const own = await page.evaluate(timeline);
  const entries = { ...own.entries };
  for (const worker of page.workers()) {
    const theirs = await worker.evaluate(timeline).catch(() => null);
    if (theirs === null || theirs.entries["search-start"] === undefined)
      continue;
    const shift = theirs.origin - own.origin;
    entries["worker: timeOrigin"] = shift;
    for (const [name, time] of Object.entries(theirs.entries)) {
      entries[`worker: ${name}`] = time + shift;
    }
  }
  return entries;
}

async function measure(browser, origin, query, path = "app") {
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
  });
  const page = await context.newPage();
  // The browser's CPU from the navigation (or the click) to the first row, read when the page
  // reports that row (the search goes on after it: read at once, not when this script polls).
  let cpuStart = 0;
  let firstRowCpuMs;
  await page.exposeFunction("__paraplanFirstRow", () => {
    firstRowCpuMs ??= browserCpuMs() - cpuStart;
  });
  await page.addInitScript(observe);
  cpuStart = browserCpuMs();
  if (CLICK === undefined) {
    await page.goto(`${origin}/${path}/?${query}`);
  } else {
    await page.goto(`${origin}/${path}/?${query.replace(/&run=1$/, "")}`);
    await page.waitForSelector('[data-testid="search-button"]');
    await page.waitForTimeout(Number(CLICK));
    await page.evaluate(() => (window.__marks.click = performance.now()));
    cpuStart = browserCpuMs();
    await page.click('[data-testid="search-button"]');
  }
  await page.waitForFunction(
    (first) =>
      window.__marks?.final !== undefined ||
      (first && window.__marks?.provisional !== undefined),
    FIRST,
    { timeout: 300_000, polling: 50 },
  );
  const marks = await page.evaluate(() => window.__marks);
  if (marks.click !== undefined) {
    for (const key of ["provisional", "final", "searching", "form"])
      if (marks[key] !== undefined) marks[key] -= marks.click;
  }
  marks.cpu = firstRowCpuMs;
  marks.startup = await startup(page);
  marks.longTasks = await page.evaluate(() => window.__longTasks);
  await context.close();
  return marks;
}

// The medians of each start-up entry over the runs, in time order.
function printStartup(name, runs) {
  const names = new Set(runs.flatMap((marks) => Object.keys(marks.startup)));
  const rows = [...names]
    .map((entry) => {
      const values = runs
        .map((marks) => marks.startup[entry])
        .filter((value) => value !== undefined);
      return [entry, median(values)];
    })
    .sort((a, b) => a[1] - b[1]);
  console.log(`  start-up of ${name} (ms since navigation, medians):`);
  for (const [entry, value] of rows)
    console.log(`    ${ms(value).padStart(6)}  ${entry}`);
  // The page's long tasks before its first row, in the run with the median first row.
  const first = (marks) =>
    Math.min(marks.provisional ?? Infinity, marks.final ?? Infinity);
  const middle = [...runs].sort((a, b) => first(a) - first(b))[
    Math.floor(runs.length / 2)
  ];
  const tasks = middle.longTasks
    .filter(([start]) => start < first(middle))
    .map(([start, duration]) => `${ms(start)}+${ms(duration)}`);
  console.log(
    `    the page's long tasks (start+duration, ms) before its first row at ` +
      `${ms(first(middle))} in the median run: ${tasks.join(", ") || "none"}`,
  );
}

// The preset models of the page's catalogue (its model menu).
async function presetModels(browser, origin) {
  const page = await browser.newPage();
  await page.goto(`${origin}/app/?lang=en`);
  await page.waitForSelector('[data-testid="model-select"] option', {
    state: "attached",
  });
  const models = await page.$$eval(
    '[data-testid="model-select"] option',
    (options) =>
      options.map((option) => option.value).filter((v) => v && v !== "custom"),
  );
  await page.close();
  return models;
}

if (!existsSync(join(DIST, "index.html"))) {
  console.error(`${DIST} is missing: run npm run build in web/`);
  process.exit(1);
}
const site = mkdtempSync(join(tmpdir(), "paraplan-bench-"));
cpSync(DIST, join(site, "app"), { recursive: true });
// --compare=DIR: another build (e.g. the main branch's), measured in turns with this one, run
// by run, so that both see the same load.
const COMPARE = ARGS.find((arg) => arg.startsWith("--compare="))?.slice(10);
if (COMPARE !== undefined)
  cpSync(COMPARE, join(site, "before"), { recursive: true });
const variants =
  COMPARE === undefined
    ? [["", "app"]]
    : [
        [" [compared]", "before"],
        ["", "app"],
      ];
const { server, origin } = await serveDirectory(site);
const browser = await launchChromium();
try {
  const links = { ...LINKS };
  if (MODELS) {
    for (const model of await presetModels(browser, origin)) {
      for (const gpus of SIZES)
        links[`${model}, a800:${gpus}`] =
          `lang=en&model=${model}&${defaultJob(gpus)}&run=1`;
    }
  }
  console.log(
    "job | first provisional row | final rows | first row of either | form drawn | " +
      "search started (ms since navigation, medians) | " +
      "search time at the first provisional row (ms) | " +
      "first provisional #1 tokens/s as % of the final #1 | " +
      "the browser's CPU to the first row (ms, median)",
  );
  // The first run of all warms the browser process, not the cache; it is not counted.
  await measure(browser, origin, Object.values(links)[0]);
  const only = ARGS.find((arg) => arg.startsWith("--only="))?.slice(7);
  for (const [name, query] of Object.entries(links)) {
    if (only !== undefined && !name.includes(only)) continue;
    const measured = variants.map(() => []);
    for (let run = 0; run < RUNS; run++) {
      for (const [index, [, path]] of variants.entries()) {
        measured[index].push(await measure(browser, origin, query, path));
      }
    }
    for (const [index, [label]] of variants.entries()) {
      report(`${name}${label}`, measured[index]);
    }
  }
  const late = Object.entries(firstRowMedians).filter(
    ([, value]) => value > TARGET_MS,
  );
  console.log(
    `${late.length} of ${Object.keys(firstRowMedians).length} jobs over ${TARGET_MS} ms to ` +
      `the first row (median): ${late.map(([name, value]) => `${name} ${ms(value)}`).join("; ") || "none"}`,
  );
} finally {
  await browser.close();
  server.close();
  rmSync(site, { recursive: true, force: true });
}

// One job's row: the medians of its runs.
function report(name, runs) {
  const of = (key) =>
    runs.map((marks) => marks[key]).filter((v) => v !== undefined);
  const first = runs.map((marks) =>
    Math.min(marks.provisional ?? Infinity, marks.final ?? Infinity),
  );
  const provisional = of("provisional");
  firstRowMedians[name] = median(first);
  console.log(
    `${name} | ${provisional.length ? ms(median(provisional)) : "-"} ` +
      `(${provisional.length}/${runs.length} runs) | ${ms(median(of("final")))} ` +
      `(runs ${of("final").map(ms).join(", ")}) | ${ms(median(first))} | ${ms(median(of("form")))} | ${ms(median(of("searching")))} | ` +
      `${ms(median(of("searchMs")))} | ` +
      `${quality(runs)} | ${ms(median(of("cpu")))}`,
  );
  if (STARTUP) printStartup(name, runs);
}
