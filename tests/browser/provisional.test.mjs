// Issue 30 item 8 in Chromium on the production build: while a slow search runs, the best rows
// so far show at once in a provisional table, marked as such, and the exact ranking replaces
// them when the search ends; cancelling takes them away.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { useSite } from "./lib/use-site.mjs";
import { SCREENSHOTS } from "./site.mjs";

const TIMEOUT_MS = 300_000;
// DeepSeek-V3 on 512 H800 (the audit's job, shared/reference/web-audit-2.md): seconds of search.
const SLOW_JOB =
  "model=deepseek-v3&gpu-infos=h800:512&num-gpus=512&global-batch-size=4096&seq-length=4096";

const byTestId = (id) => `[data-testid="${id}"]`;

// A row of the rows so far holds what the table draws (about 3 KB of JSON); a result's row, with
// its launches and per-stage report, about 20-30 KB (issue 30 item 8: 233 KB for ten rows).
const PROGRESS_ROW_MAX_BYTES = 6000;

// Marks taken in the page (ms since navigation): the first provisional row, the first final
// row, and whether both kinds were ever shown at once; and the size of the largest row of the
// worker's progress messages.
function observeRows() {
  const marks = (window.__marks = { both: false, progressRowBytes: 0 });
  const Original = window.Worker;
  window.Worker = class extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", ({ data }) => {
        for (const row of data?.progress?.search?.rows ?? []) {
          const bytes = JSON.stringify(row).length;
          marks.progressRowBytes = Math.max(marks.progressRowBytes, bytes);
        }
      });
    }
  };
  new MutationObserver(() => {
    const now = performance.now();
    const shown = (id) =>
      [...document.querySelectorAll(`[data-testid="${id}"]`)].some(
        (row) => row.offsetParent !== null,
      );
    const provisional = shown("provisional-row");
    const final = shown("result-row");
    if (provisional && marks.provisional === undefined) marks.provisional = now;
    if (final && marks.final === undefined) marks.final = now;
    if (provisional && final) marks.both = true;
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

describe("issue 30: the best so far while the search runs (production build)", () => {
  const site = useSite();

  it("shows provisional rows before the final result, then the exact ranking replaces them", async () => {
    const page = await site.context.newPage();
    await page.addInitScript(observeRows);
    await page.goto(`${site.origin}/paraplan/?lang=en&${SLOW_JOB}&run=1`);
    await page.waitForSelector(byTestId("provisional-row"), {
      timeout: TIMEOUT_MS,
    });
    // Marked as provisional while the search runs: the note, its progress, the announcement.
    const note = await page.textContent(byTestId("provisional-note"));
    assert.match(
      note,
      /Best so far, search still running: [\d,]+ strategies evaluated in [\d.,]+ m?s/,
    );
    assert.equal(
      await page.textContent(byTestId("provisional-status")),
      "Best strategies so far are shown; the search is still running.",
    );
    assert.equal(await page.locator(byTestId("result-row")).count(), 0);
    // Provisional rows open nothing: no keyboard stop, no selection.
    const first = page.locator(byTestId("provisional-row")).first();
    assert.equal(await first.getAttribute("tabindex"), null);
    assert.match(await first.textContent(), /^1\b/);
    await page.screenshot({
      path: join(SCREENSHOTS, "provisional-running.png"),
      fullPage: true,
    });

    await page.waitForSelector(byTestId("result-row"), { timeout: TIMEOUT_MS });
    const marks = await page.evaluate(() => window.__marks);
    assert.ok(marks.provisional < marks.final, JSON.stringify(marks));
    // Progress messages carry rows as the table draws them, not the result's full rows.
    assert.ok(marks.progressRowBytes > 0, JSON.stringify(marks));
    assert.ok(
      marks.progressRowBytes < PROGRESS_ROW_MAX_BYTES,
      JSON.stringify(marks),
    );
    assert.equal(
      marks.both,
      false,
      "provisional and final rows were shown together",
    );
    assert.equal(
      await page.locator(`${byTestId("provisional-row")}:visible`).count(),
      0,
    );
    assert.ok(await page.locator(byTestId("provisional-table")).isHidden());
    assert.ok((await page.locator(byTestId("result-row")).count()) > 1);
    assert.equal(await page.locator(byTestId("provisional-note")).count(), 0);
    assert.equal(
      await page.textContent(byTestId("provisional-status")),
      "Search finished: the table shows the exact ranking.",
    );
    assert.match(
      await page.textContent(byTestId("search-status")),
      /feasible strategies/,
    );
    await page.screenshot({
      path: join(SCREENSHOTS, "provisional-final.png"),
      fullPage: true,
    });
    await page.close();
  });

  it("a job that fits only at the largest tensor parallel size shows the probe's row before the walk reaches it", async () => {
    // llama-1800b on 1024 A800 (the page's job): every strategy that fits has TP 8, the last
    // size the walk tries; the probe (core/src/search/first_rows_probe.cpp) searches TP 8 first,
    // and its row comes in the search's first report with rows, before the walk (fraction 0),
    // marked as provisional, and before the result.
    const page = await site.context.newPage();
    await page.addInitScript(observeRows);
    await page.addInitScript(() => {
      const seen = (window.__messages = []);
      const Original = window.Worker;
      window.Worker = class extends Original {
        constructor(...args) {
          super(...args);
          this.addEventListener("message", ({ data }) => {
            const rows = data?.progress?.search?.rows;
            if (rows !== undefined) {
              seen.push({
                type: "rows",
                fraction: data.progress.search.fraction,
                tensor: rows[0]?.strategy?.tensor_model_parallel_size,
              });
            } else if (data?.type === "result" && data.result?.strategies) {
              seen.push({ type: "result" });
            }
          });
        }
      };
    });
    await page.goto(
      `${site.origin}/paraplan/?lang=en&model=llama-1800b&gpu-infos=a800:1024&num-gpus=1024` +
        "&global-batch-size=2048&seq-length=4096&run=1",
    );
    await page.waitForSelector(byTestId("result-row"), { timeout: TIMEOUT_MS });
    const messages = await page.evaluate(() => window.__messages);
    const marks = await page.evaluate(() => window.__marks);
    assert.ok(messages.length >= 2, JSON.stringify(messages));
    assert.deepEqual(messages[0], { type: "rows", fraction: 0, tensor: 8 });
    assert.equal(messages.at(-1).type, "result", JSON.stringify(messages));
    // Shown as provisional rows before the final ones, never together.
    assert.ok(marks.provisional < marks.final, JSON.stringify(marks));
    assert.equal(marks.both, false);
    await page.close();
  });

  it("a MoE job's first rows come from the probe's corner: its experts spread over a node, dispatched all-to-all", async () => {
    // DeepSeek-V3 on 512 H800 (256 experts, 8 GPUs a node): the walk tries expert parallel 1
    // and the allgather dispatcher first; the probe (core/src/search/first_rows_probe.cpp) pins
    // expert parallel 8, expert tensor parallel 1 and alltoall, and its row is the search's
    // first, before the walk (fraction 0). (Which report the page draws first depends on when
    // its main chunk loads: the walk's may already have replaced it.)
    const page = await site.context.newPage();
    await page.addInitScript(() => {
      const seen = (window.__firstRows = []);
      const Original = window.Worker;
      window.Worker = class extends Original {
        constructor(...args) {
          super(...args);
          this.addEventListener("message", ({ data }) => {
            const search = data?.progress?.search;
            if (search?.rows !== undefined) {
              const { strategy } = search.rows[0];
              seen.push({
                fraction: search.fraction,
                ep: strategy.expert_model_parallel_size,
                etp: strategy.expert_tensor_parallel_size,
                dispatcher: strategy.moe_token_dispatcher_type,
              });
            }
          });
        }
      };
    });
    await page.goto(`${site.origin}/paraplan/?lang=en&${SLOW_JOB}&run=1`);
    await page.waitForSelector(byTestId("provisional-row"), {
      timeout: TIMEOUT_MS,
    });
    const seen = await page.evaluate(() => window.__firstRows);
    assert.deepEqual(seen[0], {
      fraction: 0,
      ep: 8,
      etp: 1,
      dispatcher: "alltoall",
    });
    await page.screenshot({
      path: join(SCREENSHOTS, "provisional-moe-probe.png"),
      fullPage: true,
    });
    await page.close();
  });

  it("says so in Chinese, and cancelling takes the provisional rows away", async () => {
    const page = await site.context.newPage();
    await page.goto(`${site.origin}/paraplan/?lang=zh&${SLOW_JOB}&run=1`);
    await page.waitForSelector(byTestId("provisional-row"), {
      timeout: TIMEOUT_MS,
    });
    assert.match(
      await page.textContent(byTestId("provisional-note")),
      /目前最佳，搜索仍在进行/,
    );
    await page.screenshot({
      path: join(SCREENSHOTS, "provisional-zh.png"),
      fullPage: true,
    });
    await page.click(byTestId("cancel-button"));
    await page.waitForSelector(`${byTestId("provisional-table")}`, {
      state: "hidden",
      timeout: TIMEOUT_MS,
    });
    assert.equal(await page.locator(byTestId("result-row")).count(), 0);
    assert.equal(await page.locator(byTestId("provisional-note")).count(), 0);
    assert.match(
      await page.textContent(byTestId("search-status")),
      /搜索已取消/,
    );
    await page.close();
    assert.deepEqual(site.consoleErrors, []);
  });
});
