// Benchmark (not a test): time from navigation to the first result row for a shared link that
// runs a search (run=1), in fresh browser contexts (cold HTTP cache), on the production build
// served from a sub-path by the plain static server. Prints each run and the median in ms.
//   cd tests && node browser/first-result.bench.mjs [RUNS]   (PARAPLAN_DIST=DIR for another build)
// Also prints when the form was drawn (the Search button present) and when the module's
// first answer came (the results' status line), to show where the time goes.
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./launch.mjs";
import { serveDirectory } from "./static-server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = process.env.PARAPLAN_DIST ?? join(HERE, "..", "..", "web", "dist");
const RUNS = Number(process.argv[2] ?? 7);
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
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

if (!existsSync(join(DIST, "index.html"))) {
  console.error(`${DIST} is missing: run npm run build in web/`);
  process.exit(1);
}
const site = mkdtempSync(join(tmpdir(), "paraplan-bench-"));
cpSync(DIST, join(site, "app"), { recursive: true });
const { server, origin } = await serveDirectory(site);
const browser = await launchChromium();
try {
  for (const [name, query] of Object.entries(LINKS)) {
    const rows = [];
    const forms = [];
    for (let run = 0; run < RUNS + 1; run++) {
      const context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
      });
      const page = await context.newPage();
      // Marks taken in the page, in ms since navigation started (performance.now()).
      await page.addInitScript(() => {
        const marks = (window.__marks = {});
        new MutationObserver(() => {
          const now = performance.now();
          const button = document.querySelector(
            '[data-testid="search-button"]',
          );
          if (marks.form === undefined && button) marks.form = now;
          if (
            marks.row === undefined &&
            document.querySelector('[data-testid="result-row"]')
          )
            marks.row = now;
        }).observe(document, {
          subtree: true,
          childList: true,
          attributes: true,
        });
      });
      await page.goto(`${origin}/app/?${query}`);
      await page.waitForSelector('[data-testid="result-row"]', {
        timeout: 120_000,
      });
      const marks = await page.evaluate(() => window.__marks);
      await context.close();
      if (run === 0) continue; // the first run warms the browser process, not the cache
      rows.push(marks.row);
      forms.push(marks.form ?? NaN);
    }
    console.log(
      `${name}: first result row median ${median(rows).toFixed(0)} ms ` +
        `(runs ${rows.map((v) => v.toFixed(0)).join(", ")}); ` +
        `form drawn median ${median(forms).toFixed(0)} ms`,
    );
  }
} finally {
  await browser.close();
  server.close();
  rmSync(site, { recursive: true, force: true });
}
