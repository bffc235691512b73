// The production build's decision aids in Chromium: why this strategy (alternatives, binding
// constraint, sensitivities), the comparison, a training campaign, near-duplicate grouping,
// the Pareto view, estimate mode, the phone layout and keyboard focus, in English and Chinese.
// Screenshots (desktop and 390 px) go to screenshots/ with a "d" prefix.
import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { useSite } from "./lib/use-site.mjs";
import { SCREENSHOTS } from "./site.mjs";

const TIMEOUT_MS = 180_000;
const byTestId = (id) => `[data-testid="${id}"]`;
// The default job (llama2-70b on 256 A800s), searched when the page opens.
const JOB =
  "lang=en&model=llama2-70b&gpu-infos=a800:256&num-gpus=256&global-batch-size=512&seq-length=4096&precision=bf16&top=20&run=1";

describe("web page decision aids (production build)", () => {
  const site = useSite();
  let page;

  const screenshot = (name, target = page) =>
    target.screenshot({
      path: join(SCREENSHOTS, `${name}.png`),
      fullPage: true,
    });
  const urlOf = (target) => target.evaluate(() => window.location.href);

  async function open(target, query) {
    await target.goto(`${site.origin}/paraplan/?${query}`);
    await target.waitForSelector(byTestId("result-row"), {
      timeout: TIMEOUT_MS,
    });
  }

  // Waits until every sensitivity row has its answer.
  async function sensitivitiesDone(target) {
    await target.waitForFunction(
      (selector) => {
        const cells = [...document.querySelectorAll(`${selector} tbody td`)];
        return (
          cells.length > 0 && cells.every((cell) => cell.textContent !== "…")
        );
      },
      byTestId("sensitivities"),
      { timeout: TIMEOUT_MS },
    );
  }

  before(async () => {
    page = await site.context.newPage();
  });

  it("says why the open strategy: runner-up, families, binding constraint, sensitivities", async () => {
    await open(page, `${JOB}&selected=1`);
    await page.waitForSelector(byTestId("alternatives"));
    const alternatives = await page
      .locator(`${byTestId("alternatives")} tbody tr`)
      .allInnerTexts();
    assert.equal(alternatives.length, 6); // runner-up and five families
    assert.match(alternatives[0], /^Runner-up\s*#2\s*TP\d/); // cells with or without tabs
    assert.match(alternatives[0], /[+−±][\d.]+%/);
    assert.match(alternatives[0], /GiB/);
    assert.match(
      await page.locator(byTestId("binding")).innerText(),
      /^(Memory-bound at micro-batch \d|.+-bound: [\d.]+% of the iteration|Compute-bound)/,
    );
    await sensitivitiesDone(page);
    const sensitivities = await page
      .locator(`${byTestId("sensitivities")} tbody tr`)
      .allInnerTexts();
    assert.equal(sensitivities.length, 4);
    assert.match(sensitivities[0], /^Micro-batch \+1/);
    // Each row is a report (throughput and memory) or the reason it does not fit.
    for (const row of sensitivities)
      assert.match(row, /GiB|does not fit|infeasible|apply|:/i);
    assert.match(sensitivities[2], /^More nodes: \d+ GPUs/);
    await screenshot("d01-why");
  });

  it("moves the focus to the strategy that opens from another view", async () => {
    await page
      .locator(`${byTestId("alternatives")} tbody tr >> nth=0 >> button`)
      .click();
    await page.waitForFunction(
      () => new URL(location.href).searchParams.get("selected") === "2",
    );
    const focused = await page.evaluate(
      () => document.activeElement?.textContent ?? "",
    );
    assert.match(focused, /#2/);
  });

  it("compares strategies side by side, and keeps them in the URL", async () => {
    await page.click(byTestId("compare-toggle"));
    await page.locator(byTestId("result-row")).first().click();
    await page.click(byTestId("compare-toggle"));
    const table = page.locator(byTestId("compare-table"));
    await table.waitFor();
    const head = await table.locator("thead th").allInnerTexts();
    assert.equal(head.length, 3);
    assert.match(head[1], /#2/);
    assert.match(head[2], /#1/);
    assert.equal(new URL(await urlOf(page)).searchParams.get("compare"), "2,1");
    assert.ok((await table.locator("tbody tr").count()) > 10);
    await screenshot("d02-compare");
    const reopened = await site.context.newPage();
    await reopened.goto(await urlOf(page));
    await reopened.waitForSelector(byTestId("compare-table"), {
      timeout: TIMEOUT_MS,
    });
    assert.equal(
      await reopened.locator(`${byTestId("compare-table")} thead th`).count(),
      3,
    );
    await reopened.close();
  });

  it("turns tokens and a price into days, GPU-hours and cost", async () => {
    await page.fill("#campaign-trainTokens", "2T");
    await page.fill("#campaign-gpuHourPrice", "2");
    await page.waitForFunction(
      (selector) =>
        (document.querySelector(selector)?.textContent ?? "").includes("Cost"),
      byTestId("campaign-result"),
    );
    const text = await page.locator(byTestId("campaign-result")).innerText();
    const value = (label) =>
      Number(
        new RegExp(`${label}\\s+([\\d,.]+)`).exec(text)[1].replaceAll(",", ""),
      );
    const tokensPerGpu = Number(
      (
        await page
          .locator(`${byTestId("detail-view")} .summary dd`)
          .first()
          .innerText()
      )
        .replaceAll(",", "")
        .match(/[\d.]+/)[0],
    );
    const hours = 2e12 / (tokensPerGpu * 256) / 3600;
    assert.ok(Math.abs(value("Days") - hours / 24) / (hours / 24) < 0.02, text);
    assert.ok(
      Math.abs(value("GPU-hours") - hours * 256) / (hours * 256) < 0.02,
      text,
    );
    assert.ok(
      Math.abs(value("Cost") - hours * 256 * 2) / (hours * 512) < 0.02,
      text,
    );
    const params = new URL(await urlOf(page)).searchParams;
    assert.equal(params.get("train-tokens"), "2T");
    assert.equal(params.get("gpu-hour-price"), "2");
    await screenshot("d03-campaign");
  });

  it("groups near-duplicates and plots throughput against memory", async () => {
    const before = await page.locator(byTestId("result-row")).count();
    await page.check(`${byTestId("group-toggle")} input`);
    const after = await page.locator(byTestId("result-row")).count();
    const badges = await page
      .locator(byTestId("variant-badge"))
      .allInnerTexts();
    const hidden = badges.reduce(
      (sum, text) => sum + Number(text.match(/\d+/)[0]),
      0,
    );
    assert.equal(after + hidden, before);
    assert.equal(new URL(await urlOf(page)).searchParams.get("group"), "1");
    await page.click(`${byTestId("pareto-view")} summary`);
    const points = page.locator(byTestId("pareto-point"));
    assert.equal(await points.count(), before);
    assert.ok(
      (await page.locator(`${byTestId("pareto-view")} .on-front`).count()) >= 1,
    );
    await page.locator(`${byTestId("pareto-point")}[data-rank="3"]`).click();
    assert.equal(new URL(await urlOf(page)).searchParams.get("selected"), "3");
    await screenshot("d04-pareto-grouped");
    await page.uncheck(`${byTestId("group-toggle")} input`);
  });

  it("announces the table's order when sorted", async () => {
    await page
      .locator(`${byTestId("results-table")} th button`)
      .nth(4)
      .click();
    assert.match(
      await page.locator(byTestId("sort-status")).innerText(),
      /^Sorted by Memory.*, (ascending|descending)$/,
    );
  });

  it("reports a fixed strategy without a search, feasible or not (estimate mode)", async () => {
    const fixed = await site.context.newPage();
    await fixed.goto(
      `${site.origin}/paraplan/?lang=en&model=llama2-70b&gpu-infos=a800:256&num-gpus=256&global-batch-size=512&seq-length=4096&precision=bf16&tp=8&pp=4&vp=1&cp=1&ep=1&mbs=1&sp=on&recompute=selective&zero=1&flash=on&estimate=1`,
    );
    await fixed.waitForSelector(byTestId("estimate-summary"), {
      timeout: TIMEOUT_MS,
    });
    assert.equal(await fixed.locator(byTestId("result-row")).count(), 0); // no search ran
    assert.match(
      await fixed.locator(byTestId("estimate-summary")).innerText(),
      /tokens\/s per GPU/,
    );
    await screenshot("d05-estimate", fixed);
    // Too big to fit: the report says why.
    await fixed.fill("details.pinned input >> nth=0", "1");
    await fixed.fill("details.pinned input >> nth=1", "1");
    await fixed.click(byTestId("estimate-button"));
    await fixed.waitForSelector(byTestId("estimate-infeasible"), {
      timeout: TIMEOUT_MS,
    });
    assert.match(
      await fixed.locator(byTestId("estimate-infeasible")).innerText(),
      /GiB/,
    );
    await fixed.close();
  });

  it("shows the validation table per source, and what the model assumes of a GPU", async () => {
    await page.click(`${byTestId("validation-table")} summary`);
    const sources = page.locator(
      `${byTestId("validation-table")} .validation-source`,
    );
    // The table is drawn on the details' toggle event, which fires after the click returns.
    await sources.first().waitFor();
    assert.ok((await sources.count()) >= 5);
    // Both sets with their own summary: the runs never tuned to are not hidden.
    const sets = page.locator(
      `${byTestId("validation-table")} ${byTestId("validation-set")}`,
    );
    assert.equal(await sets.count(), 2);
    assert.match(await sets.nth(1).innerText(), /2025-2026/);
    assert.match(
      await sources.first().innerText(),
      /runs, \|error\| median [\d.]+%/,
    );
    assert.match(
      await page
        .locator(`${byTestId("validation-table")} tbody tr`)
        .first()
        .innerText(),
      /^R\d+\s.+\s[\d,.]+\s+[\d,.]+\s+[+−][\d.]+%/,
    );
    assert.match(
      await page.locator(byTestId("validation-status")).innerText(),
      /validat/,
    );
    await screenshot("d07-validation");
    await page.locator(".gpu-row button.icon").first().click();
    const assumptions = await page
      .locator(byTestId("gpu-assumptions"))
      .innerText();
    assert.match(assumptions, /Peak tensor \(bf16\)\s+[\d,.]+ TFLOPS/);
    assert.match(
      assumptions,
      /Achievable GEMM plateau\s+[\d,]+ TFLOPS \([\d.]+%\)/,
    );
    assert.match(assumptions, /Between nodes\s+[\d.]+ GB\/s/);
    await page.locator(byTestId("gpu-assumptions")).screenshot({
      path: join(SCREENSHOTS, "d08-gpu-assumptions.png"),
    });
  });

  it("fits a phone: parallel sizes visible without sideways scrolling, in Chinese", async () => {
    const phone = await site.browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
    });
    const small = await phone.newPage();
    await open(
      small,
      `${JOB.replace("lang=en", "lang=zh")}&selected=1&compare=1,2`,
    );
    await small.waitForSelector(byTestId("alternatives"));
    const overflow = await small.evaluate(() => {
      const scroller = document.querySelector(
        '[data-testid="results-table"]',
      ).parentElement;
      return scroller.scrollWidth - scroller.clientWidth;
    });
    assert.ok(overflow <= 1, `the table scrolls sideways by ${overflow} px`);
    for (const column of ["tp", "pp", "cp", "dp", "mbs"]) {
      const box = await small
        .locator(`${byTestId("result-row")} .col-${column}`)
        .first()
        .boundingBox();
      assert.ok(box && box.x + box.width <= 390, `${column} is off screen`);
    }
    // Every string of the new views is in Chinese: no English words left.
    // (The module's own messages, such as why a strategy does not fit, stay in English.)
    const text = await small
      .locator(byTestId("decision-view"))
      .evaluate((view) => {
        const copy = view.cloneNode(true);
        for (const module of copy.querySelectorAll(".module-text"))
          module.remove();
        return copy.innerText ?? copy.textContent;
      });
    assert.doesNotMatch(
      text.replace(
        /TP|PP|CP|EP|DP|ZeRO|FSDP|MFU|GiB|GPU|Megatron-LM|Narayanan|micro-batch|mbs|selective|full|block|uniform|none|Top|p2p|a2a|allgather|token/g,
        "",
      ),
      /[A-Za-z]{3,}/,
    );
    await sensitivitiesDone(small);
    await screenshot("d06-phone-zh", small);
    await phone.close();
  });

  it("logged no error", () => {
    assert.deepEqual(site.consoleErrors, []);
  });
});
