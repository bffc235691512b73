// The page's scaling benchmark: llama3-70b on H100 (GBS 1024, seq 8192) from 8 to 4096 GPUs in
// steps of 8 (512 searches) in the production build under headless Chromium, on the page's pool
// of Web Workers (one per core). Prints seconds from pressing Run scaling to the last point;
// asserts nothing. Run after `npm run build` in web/: node tests/browser/bench-scaling.mjs
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./launch.mjs";
import { serveDirectory } from "./static-server.mjs";

const DIST = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "web",
  "dist",
);
const site = mkdtempSync(join(tmpdir(), "paraplan-bench-"));
cpSync(DIST, join(site, "paraplan"), { recursive: true });
const { server, origin } = await serveDirectory(site);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  const query = new URLSearchParams({
    model: "llama3-70b",
    "gpu-infos": "h100:8",
    "num-gpus": "8",
    "global-batch-size": "1024",
    "seq-length": "8192",
    view: "scaling",
    "scale-from": "8",
    "scale-to": "4096",
    "scale-step": "8",
    "scale-budget": "30",
  });
  await page.goto(`${origin}/paraplan/?${query}`);
  await page.waitForSelector('[data-testid="scaling-button"]');
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  for (let run = 0; run < 2; run++) {
    const seconds = await page.evaluate(async () => {
      const started = performance.now();
      const summary = () =>
        document.querySelector('[data-testid="scaling-summary"]')
          ?.textContent ?? "";
      document.querySelector('[data-testid="scaling-button"]').click();
      while (!/^0 of 512/.test(summary()))
        await new Promise((resolve) => setTimeout(resolve, 5));
      const done = () =>
        /^512 of 512 sizes searched/.test(
          document.querySelector('[data-testid="scaling-summary"]')
            ?.textContent ?? "",
        );
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
      return (performance.now() - started) / 1000;
    });
    const summary = await page
      .locator('[data-testid="scaling-summary"]')
      .innerText();
    console.log(
      `page: 512-search scaling series on ${cores} workers, run ${run + 1}: ${seconds.toFixed(3)} s (${summary})`,
    );
  }
} finally {
  await browser.close();
  server.close();
  rmSync(site, { recursive: true, force: true });
}
