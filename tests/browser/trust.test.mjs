// The production build on the jobs an expert's audit planned (shared/reference/web-audit-2.md):
// a shared link that opened a strategy the module then refused must not hang the tab, the
// ranking lists distinct layouts with search-wide family bests, rows carry their memory
// verdict, uncertainty band and out-of-regime mark, and a GPU type of the user's own is
// defined, shared and named. Screenshots go to screenshots/ with a "t" prefix.
import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { useSite } from "./lib/use-site.mjs";
import { SCREENSHOTS } from "./site.mjs";

const TIMEOUT_MS = 180_000;
const byTestId = (id) => `[data-testid="${id}"]`;

// 405B on 1024 H100 launched by torchtitan: row 1 is FSDP with pipeline parallelism, which
// Megatron-LM's rules refuse. The detail once rebuilt it without its framework, got an empty
// schedule back, and looped forever drawing the time axis.
const TORCHTITAN_405B =
  "lang=en&model=llama3.1-405b&gpu-infos=h100:1024&num-gpus=1024&global-batch-size=1536&seq-length=8192&framework=torchtitan&run=1";
const QWEN3_MOE =
  "lang=en&model=qwen3-30b-a3b&gpu-infos=h100:64&num-gpus=64&global-batch-size=512&seq-length=4096&top=10&run=1";
const A100_40G =
  "lang=en&model=llama3-8b&gpu-infos=a100-40g:8&num-gpus=8&global-batch-size=128&seq-length=8192&run=1";
// A dense job on H800s at an MFU within the H100's published range (issue 30 item 4).
const H800_DENSE =
  "lang=en&model=llama3-70b&gpu-infos=h800:64&num-gpus=64&global-batch-size=512&seq-length=4096&run=1";
const X200 = [
  "lang=en&model=llama3-8b&gpu-infos=x200:64&num-gpus=64&global-batch-size=256&seq-length=8192&run=1",
  "gpu.x200.base=h100",
  "gpu.x200.bf16_tflops=1500",
  "gpu.x200.hbm_gib=192",
  "gpu.x200.hbm_gb_per_s=6000",
  "gpu.x200.intra_gb_per_s=900",
  "gpu.x200.nvlink_gpus=8",
  "gpu.x200.inter_gb_per_s=50",
].join("&");

describe("web page trust (production build)", () => {
  const site = useSite();
  let page;

  const screenshot = (name) =>
    page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  async function open(query) {
    await page.goto(`${site.origin}/paraplan/?${query}`);
    await page.waitForSelector(byTestId("result-row"), { timeout: TIMEOUT_MS });
  }

  const rowAttributes = (name) =>
    page
      .locator(byTestId("result-row"))
      .evaluateAll(
        (rows, attribute) => rows.map((row) => row.getAttribute(attribute)),
        name,
      );

  before(async () => {
    page = await site.context.newPage();
  });

  it("opens a shared torchtitan strategy with its schedule, and the tab stays responsive", async () => {
    await open(`${TORCHTITAN_405B}&selected=1`);
    // The schedule is drawn from the strategy rebuilt with its framework.
    await page.waitForSelector(`${byTestId("schedule")}[data-state="ready"]`, {
      timeout: TIMEOUT_MS,
    });
    // A hung main thread answers nothing: this evaluation must come back at once.
    const started = Date.now();
    assert.equal(await page.evaluate(() => 1 + 1), 2);
    assert.ok(Date.now() - started < 5_000, "the main thread is blocked");
    await page.click(byTestId("result-row"));
    assert.equal(await page.evaluate(() => document.readyState), "complete");
    // The detail says how far off the number may be, and the memory verdict with its numbers.
    const detail = await page.locator(byTestId("detail-view")).innerText();
    assert.match(detail, /80% band\s+[\d,]+–[\d,]+ tokens\/s per GPU/);
    assert.match(detail, /Memory\s+(fits|at_risk)/);
    await screenshot("t01-torchtitan-405b-detail");
  });

  it("ranks distinct layouts, each with its best variant", async () => {
    await open(QWEN3_MOE);
    const layouts = await page
      .locator(byTestId("result-row"))
      .evaluateAll((rows) =>
        rows.map((row) =>
          ["tp", "pp", "cp", "ep", "dp", "zero"]
            .map(
              (column) =>
                row.querySelector(`.col-${column}`)?.textContent ?? "",
            )
            .join(" "),
        ),
      );
    assert.ok(layouts.length >= 3, `only ${layouts.length} rows`);
    assert.equal(
      new Set(layouts).size,
      layouts.length,
      `repeated layouts: ${layouts.join(" | ")}`,
    );
    await screenshot("t02-qwen3-distinct-layouts");
  });

  it("takes each family's best from the whole search", async () => {
    await open(`${QWEN3_MOE}&selected=1`);
    const why = page.locator(byTestId("alternatives"));
    await why.waitFor({ timeout: TIMEOUT_MS });
    const text = await why.innerText();
    // Qwen3-30B-A3B's rows are expert-parallel; the search saw TP-heavy and PP-heavy layouts too.
    assert.match(text, /Best with EP/);
    assert.doesNotMatch(
      text.split("\n").find((line) => line.startsWith("Best TP-heavy")) ?? "",
      /none that fits/,
    );
    await screenshot("t03-qwen3-family-bests");
  });

  it("marks each row's memory verdict, band and regime", async () => {
    await open(A100_40G);
    const verdicts = await rowAttributes("data-memory-verdict");
    for (const verdict of verdicts)
      assert.ok(["fits", "at_risk"].includes(verdict), verdict);
    // A100 40 GB is compared with the A100 family's published runs: a row above their best MFU
    // is marked in the table, with the note in its tooltip.
    const regimes = await rowAttributes("data-out-of-regime");
    assert.ok(regimes.includes("true"), JSON.stringify(regimes));
    const titles = await rowAttributes("title");
    regimes.forEach((mark, i) => {
      if (mark === "true") assert.match(titles[i], /Outside the regimes/);
    });
    assert.ok((await page.locator(byTestId("regime-badge")).count()) > 0);
    const lows = await rowAttributes("data-tokens-low");
    const highs = await rowAttributes("data-tokens-high");
    lows.forEach((low, i) =>
      assert.ok(Number(low) < Number(highs[i]), `${low} ${highs[i]}`),
    );
    // Within a tie the safer row ranks first and says so (issue 30 item 3): a row ranked
    // above a faster one carries the reason in its tooltip; the job has such a pair (an
    // optimizer on the CPU 0.2% faster than #1).
    const tokens = await page
      .locator(`${byTestId("result-row")} td.col-tokens`)
      .allInnerTexts()
      .then((texts) => texts.map((text) => Number(text.replace(/,/g, ""))));
    const moved = tokens
      .map((value, i) =>
        tokens.slice(i + 1).some((later) => later > value) ? i : -1,
      )
      .filter((i) => i >= 0);
    assert.ok(moved.length > 0, JSON.stringify(tokens));
    for (const i of moved) {
      assert.match(
        titles[i],
        /ranked above a strategy [\d.]+% faster, within the/,
      );
    }
    // At 1440 px the whole table fits its card, the band included (a row with layers'
    // activations on the host once pushed it past the right edge).
    const overflow = await page
      .locator(byTestId("results-table"))
      .evaluate((table) => table.scrollWidth - table.parentElement.clientWidth);
    assert.ok(overflow <= 0, `the table is ${overflow} px wider than its card`);
    await screenshot("t04-a100-40g-marks");
  });

  it("compares an H800 with the H100's published runs, and marks MoE rows with their measured error", async () => {
    // Issue 30 item 4. The H800 has the H100's Tensor Cores: a dense job at ~49% causal MFU is
    // within the H100's published best (55.6%, run R091), so no row warns it is above the best
    // published for h800 (once every H800 job did, against 9.9%).
    await open(H800_DENSE);
    const h800Titles = await rowAttributes("title");
    for (const title of h800Titles)
      assert.doesNotMatch(title, /above the best published/, title);
    // Rows outside the regimes are so for another reason (ZeRO-3, FSDP's few runs); the rest
    // read as validated.
    const h800Regimes = await rowAttributes("data-out-of-regime");
    h800Regimes.forEach((mark, i) => {
      if (mark === "true") assert.match(h800Titles[i], /FSDP/, h800Titles[i]);
    });
    assert.ok(h800Regimes.includes(null), JSON.stringify(h800Regimes));
    await screenshot("t06-h800-dense-validated");
    // A mixture-of-experts row is never shown as validated: it carries ◇ and its regime's
    // measured error (the 80% interval of measured / predicted tokens/s) in its tooltip.
    await open(`${QWEN3_MOE}&selected=1`);
    const moeRegimes = await rowAttributes("data-out-of-regime");
    assert.ok(moeRegimes.length > 0);
    for (const mark of moeRegimes) assert.equal(mark, "true");
    for (const title of await rowAttributes("title"))
      assert.match(
        title,
        /mixture-of-experts, where the model errs most: published runs of "[^"]*MoE[^"]*" measured [\d.]+ to [\d.]+ times the predicted tokens\/s/,
      );
    const status = page.locator(byTestId("validation-status"));
    await status.waitFor({ timeout: TIMEOUT_MS });
    const statusText = await status.innerText();
    assert.doesNotMatch(statusText, /Inside the regimes/, statusText);
    assert.match(statusText, /Outside the validated regimes/, statusText);
    await screenshot("t07-qwen3-moe-regime-error");
  });

  it("defines a GPU type from scratch, shares it in the link and names it in the rows", async () => {
    await open(X200);
    const gpus = await page
      .locator(`${byTestId("result-row")} .col-gpus`)
      .first()
      .innerText();
    assert.match(gpus, /x200/);
    assert.match(
      await page.evaluate(() => window.location.href),
      /gpu\.x200\.bf16_tflops=1500/,
    );
    // The rows are not validated: no published run used this GPU.
    assert.equal((await rowAttributes("data-out-of-regime"))[0], "true");
    await screenshot("t05-x200-defined");
    // Missing a field: one error that names what is missing, at that field.
    await page.goto(
      `${site.origin}/paraplan/?${X200.replace("&gpu.x200.hbm_gib=192", "")}`,
    );
    const error = page.locator(byTestId("error-message")).first();
    await error.waitFor({ timeout: TIMEOUT_MS });
    assert.match(await page.locator("body").innerText(), /x200 is no preset/);
  });

  it("logs no console error", () => {
    assert.deepEqual(site.consoleErrors, []);
  });
});
