// Issue 30 items 6, 7 and 9 in Chromium on the production build: scaling cliffs that are not
// artefacts (dips with their cause, gaps with their reason, efficiency above 100% explained),
// the whole pipeline schedule of a long iteration with its left-out steady state said, and the
// polish (phone columns, Escape, the core's reasons in Chinese, errors at the right field).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { waitForScalingRows } from "./lib/scaling.mjs";
import { useSite } from "./lib/use-site.mjs";
import { SCREENSHOTS } from "./site.mjs";

const HF = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "unit",
  "data",
  "hf",
);

const TIMEOUT_MS = 300_000;

const byTestId = (id) => `[data-testid="${id}"]`;

// An element's text as the lines it is drawn on (soft wraps included), run in the page.
function renderedLines(element) {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const lines = [];
  let top = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getBoundingClientRect();
      if (rect.height === 0) continue;
      if (top === null || rect.top > top + rect.height / 2) {
        lines.push("");
        top = rect.top;
      }
      lines[lines.length - 1] += node.data[i];
    }
  }
  return lines.map((line) => line.trim());
}

describe("issue 30: scaling, schedule and polish (production build)", () => {
  const site = useSite();

  const screenshot = (name, target, fullPage = true) =>
    target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });

  async function open(target, query, selector = byTestId("result-row")) {
    await target.goto(`${site.origin}/paraplan/?${query}`);
    await target.waitForSelector(selector, { timeout: TIMEOUT_MS });
  }

  it("scaling: an awkward size is a dip with its cause, not a cliff; efficiency above 100% says why", async () => {
    const page = await site.context.newPage();
    await open(
      page,
      "lang=en&model=llama3-70b&gpu-infos=h100&num-gpus=64&global-batch-size=1024&seq-length=8192&scale-from=8&scale-to=320&scale-step=8&scale-budget=10",
      byTestId("search-button"),
    );
    await page.click(byTestId("tab-scaling"));
    await page.click(byTestId("scaling-button"));
    await waitForScalingRows(page, 40, TIMEOUT_MS);
    const rows = await page
      .locator(byTestId("scaling-row"))
      .evaluateAll((all) =>
        all.map((row) => ({
          gpus: Number(row.cells[0].textContent.replace(/,/g, "")),
          cliff: row.dataset.cliff === "true",
          dip: row.dataset.dip === "true",
          efficiency:
            row.dataset.efficiency === ""
              ? null
              : Number(row.dataset.efficiency),
          efficiencyText: row.cells[5].textContent,
          notes: row.cells[8]?.textContent ?? "",
          text: row.innerText,
        })),
      );
    // 280 GPUs = 8 x 35: data parallelism divides gcd(280, 1024) = 8, so 35 goes to the pipeline.
    const at280 = rows.find((row) => row.gpus === 280);
    assert.equal(at280.dip, true, at280.text);
    assert.equal(at280.cliff, false);
    assert.match(
      at280.notes,
      /factor 35 falls to tensor, pipeline and context parallelism/,
    );
    // No size of this range is a cliff: every low size has a better larger one.
    assert.deepEqual(
      rows.filter((row) => row.cliff).map((row) => row.gpus),
      [],
    );
    // Every efficiency above 100% is starred and explained.
    for (const row of rows.filter(
      (r) => r.efficiency !== null && r.efficiency > 1.005,
    )) {
      assert.match(row.efficiencyText, /\*$/, row.text);
      assert.match(row.notes, /above 100%/, row.text);
    }
    // Sizes without a strategy say why.
    for (const row of rows.filter((r) => r.efficiency === null))
      assert.match(row.notes, /^gap: .{10,}/, row.text);
    assert.match(
      await page.locator(byTestId("scaling-summary")).innerText(),
      /dips .* at: .*280/,
    );
    const header = await page.locator(".scaling-table thead").innerText();
    // The reference is the smallest size with a strategy (70B does not fit on 8 H100s).
    const reference = rows.find((row) => row.efficiency !== null);
    assert.equal(reference.efficiency, 1);
    assert.ok(header.includes(`per GPU vs ${reference.gpus} GPUs`), header);
    await screenshot("i30-6-scaling", page);
    await page.close();
  });

  it("schedule: a 57 s iteration is drawn whole, its steady state squeezed into a marked break; its PP 32 rows fit at 1440 px", async () => {
    const page = await site.context.newPage();
    await open(
      page,
      "lang=en&model=llama3.1-405b&gpu-infos=h100:1024&num-gpus=1024&global-batch-size=1536&seq-length=8192&run=1&selected=1",
      `${byTestId("schedule")}[data-state="ready"]`,
    );
    const note = await page.locator(byTestId("schedule-note")).innerText();
    // "The whole iteration (57.1 s) is drawn, but its steady state from 3.2 s to 53.0 s (...)"
    const match = note.match(
      /whole iteration \(([\d.]+) s\).*from ([\d.]+) s to ([\d.]+) s .*?(\d+) micro-batches/,
    );
    assert.ok(match, note);
    const [end, from, to, microBatches] = match.slice(1).map(Number);
    assert.ok(end > 30, note); // the whole iteration, not the first 5.5 s
    assert.ok(from > 0 && from < to && to < end, note);
    assert.ok(microBatches > 100, note);
    // The iteration the detail reports is the one drawn.
    const summary = await page
      .locator(`${byTestId("detail-view")} .detail-header`)
      .innerText();
    assert.ok(summary.includes(`${match[1]} s`), summary);
    await page
      .locator(".schedule")
      .screenshot({ path: join(SCREENSHOTS, "i30-7-schedule.png") });
    // PP 32 and 64: the stages column writes a run of equal stages once with its count
    // ("h100: 3·4(×30)·3"), so the table fits its card at 1440 px with its band column in view
    // (the 32 and 64 stages listed one by one pushed the band off the right edge).
    const stages = await page
      .locator(`${byTestId("result-row")} td.col-stages`)
      .allInnerTexts();
    assert.ok(
      stages.some((text) => /^h100: \d+·\d+\(×\d+\)·\d+$/.test(text)),
      stages.join(" | "),
    );
    const overflow = await page
      .locator(byTestId("results-table"))
      .evaluate((table) => table.scrollWidth - table.parentElement.clientWidth);
    assert.ok(overflow <= 0, `the table is ${overflow} px wider than its card`);
    await page.close();
  });

  it("phone: the results keep MFU and free memory with its ⚠; Escape closes the detail", async () => {
    const phone = await site.browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
    });
    phone.on("page", (opened) =>
      opened.on("pageerror", (error) => site.consoleErrors.push(error.message)),
    );
    const small = await phone.newPage();
    await open(
      small,
      "lang=en&model=llama3-8b&gpu-infos=a100-40g:8&num-gpus=8&global-batch-size=128&seq-length=8192&allow-at-risk=1&run=1",
    );
    for (const column of ["tokens", "mfu", "headroom", "tp", "pp", "dp"]) {
      const box = await small
        .locator(`${byTestId("result-row")} .col-${column}`)
        .first()
        .boundingBox();
      assert.ok(
        box && box.width > 0 && box.x + box.width <= 390,
        `${column} is off screen`,
      );
    }
    const headroom = await small
      .locator(`${byTestId("result-row")} .col-headroom`)
      .allInnerTexts();
    assert.ok(
      headroom.some((text) => text.includes("⚠")),
      headroom.join(" | "),
    );
    // The long headers wrap after a slash ("Free/" over "GPU"), never inside a word (they once
    // read "Fre", "e/G", "PU").
    for (const column of ["tokens", "headroom"]) {
      const lines = await small
        .locator(`${byTestId("results-table")} th.col-${column} button.sort`)
        .evaluate(renderedLines);
      assert.ok(lines.length >= 1, column);
      for (const line of lines.slice(0, -1))
        assert.match(line, /\/$/, `${column}: ${lines.join(" | ")}`);
    }
    const overflow = await small.evaluate(
      () => document.documentElement.scrollWidth - innerWidth,
    );
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
    await small.locator(byTestId("results-table")).scrollIntoViewIfNeeded();
    await screenshot("i30-9-phone", small, false);
    // Escape closes the detail, wherever the focus is.
    await small.locator(byTestId("result-row")).first().click();
    await small.waitForSelector(`${byTestId("detail-view")}:not([hidden])`);
    await small.keyboard.press("Escape");
    await small.waitForSelector(byTestId("detail-view"), { state: "hidden" });
    assert.doesNotMatch(
      await small.evaluate(() => location.search),
      /selected=/,
    );
    await phone.close();
  });

  it("phone: a MoE layout's results table fits a 390 px card", async () => {
    const phone = await site.browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
    });
    const small = await phone.newPage();
    await open(
      small,
      "lang=en&model=qwen3-30b-a3b&gpu-infos=h100:64&num-gpus=64&global-batch-size=512&seq-length=4096&run=1",
    );
    // Two-digit EP and DP once made it 11 px wider than its card, the micro-batch cut off.
    const overflow = await small
      .locator(byTestId("results-table"))
      .evaluate((table) => table.scrollWidth - table.parentElement.clientWidth);
    assert.ok(overflow <= 0, `the table is ${overflow} px wider than its card`);
    for (const column of ["ep", "dp", "mbs"]) {
      const box = await small
        .locator(`${byTestId("result-row")} .col-${column}`)
        .first()
        .boundingBox();
      assert.ok(
        box && box.width > 0 && box.x + box.width <= 390,
        `${column} is off screen`,
      );
    }
    await phone.close();
  });

  it("中文: the core's reasons are translated by their id; a refused strategy shows no empty memory table", async () => {
    const page = await site.context.newPage();
    await open(
      page,
      "lang=zh&model=llama2-70b&gpu-infos=a800:256&num-gpus=256&global-batch-size=512&seq-length=4096&precision=bf16&tp=3&pp=4&vp=1&cp=1&ep=1&mbs=1&sp=on&recompute=selective&zero=1&flash=on&estimate=1",
      byTestId("estimate-infeasible"),
    );
    const text = await page
      .locator(byTestId("estimate-infeasible"))
      .innerText();
    assert.match(
      text,
      /tensor_model_parallel_size（3）不能整除 num_attention_heads（64）/,
    );
    assert.doesNotMatch(text, /does not divide/);
    // The rules refused it before any stage was priced: no memory table of headers alone.
    assert.equal(await page.locator(byTestId("memory-table")).count(), 0);
    // The header too (it was built before the language was set, and stayed English).
    assert.equal(
      await page.locator(".site-header .tagline").innerText(),
      "大语言模型训练的并行策略计算器",
    );
    await screenshot("i30-9-zh-reasons", page);
    await page.close();
  });

  it("中文: a search without a strategy and a scaling gap say why in Chinese, by their id", async () => {
    const page = await site.context.newPage();
    // 70B on 4 A800: nothing fits in memory (the closest miss, search/diagnosis.cpp).
    const job =
      "lang=zh&model=llama2-70b&gpu-infos=a800:4&num-gpus=4&global-batch-size=8&seq-length=4096&precision=bf16";
    await open(page, `${job}&run=1`, byTestId("diagnosis"));
    const diagnosis = await page.locator(byTestId("diagnosis")).innerText();
    assert.match(
      diagnosis,
      /没有策略能放入 GPU 显存：最接近的策略（张量 \d+，流水线 \d+.*每卡需要 [\d.]+ GiB/,
      diagnosis,
    );
    assert.doesNotMatch(diagnosis, /no strategy|closest|GiB more/, diagnosis);
    await screenshot("i30-9-zh-diagnosis", page);
    // The scaling view: 4 and 8 GPUs, each a gap whose reason is the search's diagnosis.
    await open(
      page,
      `${job}&scale-from=4&scale-to=8&scale-step=4&scale-budget=20`,
      byTestId("search-button"),
    );
    await page.click(byTestId("tab-scaling"));
    await page.click(byTestId("scaling-button"));
    await waitForScalingRows(page, 2, TIMEOUT_MS);
    const gap = await page
      .locator(`${byTestId("scaling-row")} td:last-child`)
      .first()
      .innerText();
    assert.match(gap, /^空缺：没有策略能放入 GPU 显存/, gap);
    assert.doesNotMatch(gap, /no strategy|closest|GiB more/, gap);
    await screenshot("i30-9-zh-scaling-gap", page);
    await page.close();
  });

  it("中文: a MoE strategy's sensitivities give a rule's reason in Chinese", async () => {
    const page = await site.context.newPage();
    await open(
      page,
      "lang=zh&model=qwen3-30b-a3b&gpu-infos=h100:64&num-gpus=64&global-batch-size=512&seq-length=4096&run=1&selected=1",
      byTestId("sensitivities"),
    );
    // "Recompute one more layer" of #1 (expert-parallel overlap on) is refused by the rule
    // "expert-parallel overlap excludes full recompute": its reason in Chinese, by its id.
    const text = await page.locator(byTestId("sensitivities")).innerText();
    assert.match(
      text,
      /overlap_moe_expert_parallel_comm 要求 recompute_granularity 为 none 或 selective/,
    );
    assert.doesNotMatch(text, / needs /);
    await page.close();
  });

  it("中文: the band's basis, the memory verdict and the MoE trust note are Chinese, by their id", async () => {
    const page = await site.context.newPage();
    await open(
      page,
      "lang=zh&model=qwen3-30b-a3b&gpu-infos=h100:64&num-gpus=64&global-batch-size=512&seq-length=4096&run=1&selected=1",
      byTestId("validation-notes"),
    );
    // The detail's band, its basis and the memory verdict (once English: they carried no id).
    const summary = await page
      .locator(`${byTestId("detail-view")} dl.summary`)
      .first()
      .innerText();
    assert.match(summary, /个公开运行的实测\/预测 token\/s/, summary);
    assert.match(summary, /流水线阶段 \d+（h100）峰值 [\d.]+ GiB/, summary);
    assert.doesNotMatch(
      summary,
      /published runs|peaks at|default margin|any framework/,
      summary,
    );
    // The trust notes: MoE's measured error, with its regime's name written in Chinese too.
    const notes = await page.locator(byTestId("validation-notes")).innerText();
    assert.match(
      notes,
      /混合专家（MoE）模型，模型误差最大之处：“[^”]+”的公开运行实测/,
      notes,
    );
    assert.doesNotMatch(
      notes,
      /mixture-of-experts|published runs|was never/,
      notes,
    );
    // The row's hover text: its memory verdict in Chinese.
    const title = await page
      .locator(byTestId("result-row"))
      .first()
      .getAttribute("title");
    assert.doesNotMatch(title, /peaks at|was never/, title);
    await screenshot("i30-9-zh-trust", page);
    await page.close();
  });

  it("run=1 at 1440×900: the first rows come into view under the form", async () => {
    const page = await site.context.newPage();
    await open(
      page,
      "lang=en&model=llama3.1-405b&gpu-infos=h100:1024&num-gpus=1024&global-batch-size=1536&seq-length=8192&run=1",
    );
    // The form is built after the first rows, above them: they scroll into view once it is.
    await page.waitForFunction(
      () => document.querySelector("form.job") !== null,
      null,
      { timeout: TIMEOUT_MS },
    );
    await page.waitForFunction(() => scrollY > 0, null, { timeout: 10_000 });
    const row = await page
      .locator(byTestId("result-row"))
      .first()
      .boundingBox();
    assert.ok(
      row && row.y >= 0 && row.y + row.height <= 900,
      JSON.stringify(row),
    );
    await screenshot("i30-3-run-link-1440", page, false);
    await page.close();
  });

  it("run=1: rows that come after the form leave a reader who is typing where they are", async () => {
    const page = await site.context.newPage();
    // DeepSeek-V3 on 16,384 H100: its first rows come after the form is built.
    await page.goto(
      `${site.origin}/paraplan/?lang=en&model=deepseek-v3&gpu-infos=h100:16384&num-gpus=16384&global-batch-size=8192&seq-length=4096&run=1`,
    );
    const batch = page.locator(byTestId("global-batch-size"));
    await batch.waitFor({ timeout: TIMEOUT_MS });
    // Focus and look in one step: rows drawn before the focus may already have scrolled.
    const before = await page.evaluate(
      ([field, rows]) => {
        document.querySelector(field).focus();
        return { rows: document.querySelectorAll(rows).length, y: scrollY };
      },
      [
        byTestId("global-batch-size"),
        `${byTestId("result-row")}, ${byTestId("provisional-row")}`,
      ],
    );
    if (before.rows === 0 && before.y === 0) {
      await page.keyboard.type("0");
      await page.waitForSelector(
        `${byTestId("result-row")}, ${byTestId("provisional-row")}`,
        { timeout: TIMEOUT_MS },
      );
      await page.waitForTimeout(300);
      assert.equal(await page.evaluate(() => scrollY), 0);
      assert.equal(
        await page.evaluate(() => document.activeElement?.dataset.testid),
        "global-batch-size",
      );
    }
    await page.close();
  });

  it("results at 1440 px: a row's ≈ and ◇ marks sit on its rank's line", async () => {
    const page = await site.context.newPage();
    await open(
      page,
      "lang=en&model=llama3-8b&gpu-infos=a100-40g:8&num-gpus=8&global-batch-size=128&seq-length=8192&run=1",
    );
    const rows = await page.locator(byTestId("result-row")).evaluateAll((all) =>
      all.map((row) => {
        const tokens = row.querySelector("td.col-tokens");
        const range = document.createRange();
        range.selectNodeContents(tokens);
        return {
          text: row.innerText.replace(/\s+/g, " "),
          height: row.getBoundingClientRect().height,
          line: range.getBoundingClientRect().height,
          marks: row.querySelectorAll(".col-rank .badge").length,
          // ZeRO's and recompute's second lines (an offload) are lines of their own.
          secondLine: ["zero", "recompute"].some((column) =>
            row.querySelector(`td.col-${column}`).textContent.includes("\n"),
          ),
        };
      }),
    );
    const marked = rows.filter((row) => row.marks > 0 && !row.secondLine);
    assert.ok(marked.length >= 3, JSON.stringify(rows));
    for (const row of marked)
      assert.ok(
        row.height < 12 + 1.5 * row.line,
        `${row.height} px tall for ${row.line} px lines: ${row.text}`,
      );
    const overflow = await page
      .locator(byTestId("results-table"))
      .evaluate((table) => table.scrollWidth - table.parentElement.clientWidth);
    assert.ok(overflow <= 0, `the table is ${overflow} px wider than its card`);
    await page
      .locator(byTestId("results-table"))
      .screenshot({ path: join(SCREENSHOTS, "i30-3-rows-1440.png") });
    await page.close();
  });

  it("GPU editor: what the model assumes, the base's hint and a long error take the panel's width", async () => {
    const page = await site.context.newPage();
    // x200 is no preset and lacks most fields: the editor is open, with the error at a field.
    await open(
      page,
      "lang=en&model=llama3-8b&gpu-infos=x200:64&num-gpus=64&global-batch-size=256&seq-length=8192&gpu.x200.base=h100&gpu.x200.bf16_tflops=1500",
      byTestId("gpu-assumptions"),
    );
    const widths = await page.locator(".gpu-overrides").evaluate((panel) => {
      const style = getComputedStyle(panel);
      const inner =
        panel.clientWidth -
        parseFloat(style.paddingLeft) -
        parseFloat(style.paddingRight);
      const width = (selector) =>
        panel.querySelector(selector)?.getBoundingClientRect().width ?? 0;
      return {
        inner,
        assumptions: width(".gpu-assumptions"),
        baseHint: width(".gpu-base .hint"),
        error: width(".field:has(> .field-error)"),
      };
    });
    for (const part of ["assumptions", "baseHint", "error"])
      assert.ok(
        widths[part] >= 0.95 * widths.inner,
        `${part}: ${widths[part]} px of ${widths.inner}`,
      );
    await page
      .locator(".gpu-overrides")
      .screenshot({ path: join(SCREENSHOTS, "i30-5-gpu-editor.png") });
    await page.close();
  });

  it("errors: a bad cap under its cap box; a margin of 200% reads a percentage error", async () => {
    const page = await site.context.newPage();
    await open(
      page,
      "lang=en&model=llama2-7b&gpu-infos=a800:64&num-gpus=64",
      byTestId("search-button"),
    );
    await page.locator(".gpu-row input.cap").first().fill("abc");
    await page.click(byTestId("search-button"));
    const capError = page.locator(".gpu-cap > .field-error");
    await capError.waitFor();
    assert.match(await capError.innerText(), /whole number|integer/i);
    const clusterField = page
      .locator(byTestId("cluster-input"))
      .locator("xpath=..");
    assert.equal(await clusterField.locator(".field-error").count(), 0);
    await page
      .locator(".gpu-cap")
      .first()
      .screenshot({ path: join(SCREENSHOTS, "i30-9-cap.png") });
    await page.locator(".gpu-row input.cap").first().fill("64");
    await page.fill(byTestId("memory-margin"), "200%");
    await page.click(byTestId("search-button"));
    await page.waitForSelector(byTestId("error-message"));
    assert.equal(
      await page.locator(byTestId("error-message")).innerText(),
      "Enter a percentage from 0 to 90%",
    );
    await page.close();
  });

  it("中文: a launch target's refusals, the Hugging Face import's reasons and its input errors are Chinese, by their id", async () => {
    const page = await site.context.newPage();
    await open(
      page,
      "lang=zh&model=qwen3-30b-a3b&gpu-infos=h100:64&num-gpus=64&global-batch-size=512&seq-length=4096&run=1&selected=1",
      byTestId("launch-framework"),
    );
    // Every target that cannot launch the strategy says why, field by field, in Chinese.
    const refused = await page
      .locator(`${byTestId("launch-framework")} option`)
      .evaluateAll((all) =>
        all
          .filter((option) => option.textContent.endsWith("✕"))
          .map((option) => option.value),
      );
    assert.ok(refused.length > 0);
    for (const framework of refused) {
      await page.selectOption(byTestId("launch-framework"), framework);
      const reasons = await page
        .locator(`${byTestId("launch-unsupported")} li`)
        .allInnerTexts();
      assert.ok(reasons.length > 0, framework);
      for (const reason of reasons) {
        assert.match(
          reason,
          /^[\w.]+：.*[\u4e00-\u9fff]/u,
          `${framework}: ${reason}`,
        );
        assert.doesNotMatch(reason, / has no | no such option|: no /, reason);
      }
    }
    await page.locator(byTestId("launch-view")).scrollIntoViewIfNeeded();
    await screenshot("i30-9-zh-launch-refused", page, false);

    // The import's reasons for the keys it did not map, and an input error of the config.
    const config = JSON.parse(
      readFileSync(join(HF, "Qwen3-30B-A3B.json"), "utf8"),
    );
    await page.goto(`${site.origin}/paraplan/?lang=zh`);
    await page.waitForSelector(byTestId("search-button"));
    await page.click(`${byTestId("hf-import")} summary`);
    await page.fill(byTestId("hf-config-input"), JSON.stringify(config));
    await page.click(byTestId("hf-import-button"));
    const unmapped = await page.locator(byTestId("hf-unmapped")).innerText();
    assert.match(
      unmapped,
      /rope_theta\s*RoPE 基数不改变权重形状和 FLOP 数/,
      unmapped,
    );
    assert.doesNotMatch(
      unmapped,
      /changes no|a token id|weight initialization/,
      unmapped,
    );
    await page.locator(byTestId("hf-import")).scrollIntoViewIfNeeded();
    await screenshot("i30-9-zh-hf-import", page, false);
    await page.fill(
      byTestId("hf-config-input"),
      JSON.stringify({ ...config, hidden_size: "wide" }),
    );
    await page.click(byTestId("hf-import-button"));
    const error = page.locator(byTestId("hf-import-error"));
    await error.waitFor();
    assert.match(
      await error.innerText(),
      /hidden_size：应为正整数，实际为 字符串 "wide"/,
    );
    await screenshot("i30-9-zh-hf-error", page, false);
    // The import's own checks and the model's (core/src/input/hf_config.cpp, model.cpp): each
    // error by its id, with the numbers it names.
    const importError = async (changed, expected) => {
      await page.fill(
        byTestId("hf-config-input"),
        JSON.stringify({ ...config, ...changed }),
      );
      await page.click(byTestId("hf-import-button"));
      let text = "";
      for (let tries = 0; tries < 100 && !expected.test(text); tries++) {
        await page.waitForTimeout(100);
        text = await error.innerText();
      }
      assert.match(text, expected);
    };
    await importError(
      { num_key_value_heads: 5 },
      /num_key_value_heads：必须整除 num_attention_heads（32），实际为 5$/,
    );
    await importError(
      { architectures: ["FooForCausalLM"] },
      /architectures：应为 .+ 之一，实际为 字符串 "FooForCausalLM"$/,
    );
    await screenshot("i30-9-zh-hf-error-import-check", page, false);
    await page.close();
  });

  it("logged no error", () => {
    assert.deepEqual(site.consoleErrors, []);
  });
});
