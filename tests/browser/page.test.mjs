// The production build of the web page in Chromium, served from a sub-path by a plain
// static server: a search, its details, the URL round trip, errors, the scaling view,
// languages, embedding, exports. No console error and no request to another host.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { waitForScalingRows } from "./lib/scaling.mjs";
import { useSite } from "./lib/use-site.mjs";
import { SCREENSHOTS } from "./site.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const SEARCH_TIMEOUT_MS = 180_000;

const byTestId = (id) => `[data-testid="${id}"]`;

describe("web page (production build)", () => {
  const site = useSite({ contextOptions: { acceptDownloads: true } });
  let page;
  const requests = [];

  const screenshot = (name, target = page) =>
    target.screenshot({
      path: join(SCREENSHOTS, `${name}.png`),
      fullPage: true,
    });

  // The address as the page has it now (Playwright's page.url() may lag behind replaceState).
  const urlOf = (target) => target.evaluate(() => window.location.href);

  const rowTexts = (target) =>
    target
      .locator(byTestId("result-row"))
      .evaluateAll((rows) => rows.map((row) => row.innerText));

  async function fillJob(target, job) {
    for (const [id, value] of Object.entries(job))
      await target.fill(byTestId(id), value);
  }

  async function search(target) {
    const previous = await target
      .locator(byTestId("search-status"))
      .innerText();
    await target.click(byTestId("search-button"));
    await target.waitForFunction(
      ([status, before]) => {
        const text = document.querySelector(status)?.textContent ?? "";
        const button = document.querySelector('[data-testid="search-button"]');
        return !button.disabled && text !== before;
      },
      [byTestId("search-status"), previous],
      { timeout: SEARCH_TIMEOUT_MS },
    );
  }

  before(async () => {
    site.context.on("request", (request) => requests.push(request.url()));
    page = await site.context.newPage();
  });

  it("opens with AIAK example 1 filled in", async () => {
    await page.goto(`${site.origin}/paraplan/`);
    await page.waitForSelector(byTestId("search-button"));
    assert.equal(await page.inputValue(byTestId("model-select")), "llama2-70b");
    assert.equal(await page.inputValue(byTestId("cluster-input")), "a800:256");
    assert.equal(await page.inputValue(byTestId("num-gpus")), "256");
    assert.equal(await page.inputValue(byTestId("global-batch-size")), "512");
    assert.equal(await page.inputValue(byTestId("seq-length")), "4096");
    await screenshot("01-start");
  });

  it("ranks strategies for the AIAK mixed example, naming both GPU types", async () => {
    await fillJob(page, {
      "cluster-input": "a800:128,h800:160",
      "num-gpus": "256",
      "global-batch-size": "512",
      "seq-length": "4096",
    });
    await search(page);
    const rows = await rowTexts(page);
    assert.equal(rows.length, 10);
    assert.deepEqual(
      rows.map((row) => Number(row.split(/\s/)[0])),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    for (const row of rows) assert.match(row, /a800[\s\S]*h800/);
    assert.equal(await page.locator(byTestId("error-message")).count(), 0);
    // The status counts the rows listed.
    assert.match(
      await page.locator(byTestId("search-status")).innerText(),
      /^10 of [\d,]+ feasible strategies · /,
    );
    await screenshot("02-results");
  });

  it("sorts the table by a column", async () => {
    await page.click(`${byTestId("results-table")} th:nth-child(4) button`); // MFU
    const mfu = await page
      .locator(`${byTestId("result-row")} td:nth-child(4)`)
      .evaluateAll((cells) =>
        cells.map((cell) => parseFloat(cell.textContent)),
      );
    assert.deepEqual(
      mfu,
      [...mfu].sort((a, b) => b - a),
    );
    assert.match(await urlOf(page), /sort=mfu%3Adesc/);
    await page.click(`${byTestId("results-table")} th:nth-child(1) button`); // back to rank order
  });

  it("keeps the memory margin free on every ranked strategy", async () => {
    const headrooms = () =>
      page
        .locator(byTestId("result-row"))
        .evaluateAll((rows) =>
          rows.map((row) => Number(row.dataset.headroomGib)),
        );
    for (const headroom of await headrooms()) assert.ok(headroom >= 0);
    await page.fill(byTestId("memory-margin"), "25%");
    await search(page);
    const wide = await headrooms();
    assert.ok(wide.length > 0);
    // A800 holds 79.33 GiB, H800 79.18 GiB: a quarter of the smaller is 19.79 GiB.
    for (const headroom of wide)
      assert.ok(headroom >= 19.79, `${headroom} GiB free`);
    assert.match(await urlOf(page), /memory-margin=25%25/);
    await page.fill(byTestId("memory-margin"), "");
    await search(page);
  });

  it("opens a strategy's details: charts, schedule, flags, timeline", async () => {
    await page.locator(byTestId("result-row")).first().click();
    await page.waitForSelector(`${byTestId("schedule")}[data-state="ready"]`, {
      timeout: 60_000,
    });
    assert.ok(
      await page
        .locator(`${byTestId("detail-view")} .memory-chart canvas`)
        .isVisible(),
    );
    assert.ok(
      await page.locator(`${byTestId("detail-view")} .stacked-bar`).isVisible(),
    );
    // The memory chart's numbers as a table: one row per pipeline stage.
    const stages = await page
      .locator(`${byTestId("memory-table")} tbody tr`)
      .count();
    assert.ok(stages >= 1);
    const box = await page.locator(byTestId("schedule")).boundingBox();
    assert.ok(box.width > 600 && box.height > 100, JSON.stringify(box));
    assert.match(
      await page.locator(byTestId("megatron-args")).first().innerText(),
      /--pipeline-model-parallel-size \d+/,
    );
    const [trace] = await Promise.all([
      page.waitForEvent("download"),
      page.click(".download-trace"),
    ]);
    const events = JSON.parse(
      readFileSync(await trace.path(), "utf8"),
    ).traceEvents;
    assert.ok(
      events.some((event) => event.ph === "X" && event.name === "bubble"),
    );
    await screenshot("03-detail");
    // The README's picture (docs/screenshot.png is a copy): the form, the ranking, the summary.
    await page.screenshot({
      path: join(SCREENSHOTS, "readme.png"),
      fullPage: true,
      clip: { x: 0, y: 0, width: 1440, height: 1560 },
    });
  });

  it("shows the strategy's launch on each framework, to copy or download", async () => {
    const view = page.locator(byTestId("launch-view"));
    await view.scrollIntoViewIfNeeded();
    assert.equal(
      await page.inputValue(byTestId("launch-framework")),
      "megatron",
    );
    const command = await view
      .locator(`${byTestId("launch-command")} pre`)
      .innerText();
    assert.match(command, /torchrun --nnodes \$NNODES --nproc-per-node 8/);
    assert.match(command, /pretrain_gpt\.py --num-layers 80 /);
    assert.match(command, /# (a800|h800) hosts: NODE_RANK /); // host order by GPU type
    const [script] = await Promise.all([
      page.waitForEvent("download"),
      page.click(byTestId("launch-command-download")),
    ]);
    assert.equal(script.suggestedFilename(), "launch.sh");
    assert.equal(readFileSync(await script.path(), "utf8"), command);
    await page.selectOption(byTestId("launch-framework"), "megatron-bridge");
    assert.match(
      await view
        .locator(`${byTestId("launch-file")} h4`)
        .first()
        .innerText(),
      /pretrain_paraplan\.py/,
    );
    await view.screenshot({ path: join(SCREENSHOTS, "03b-launch.png") });
    await page.selectOption(byTestId("launch-framework"), "deepspeed");
    const deepspeed = await view.innerText();
    assert.ok(
      /ds_config\.json/.test(deepspeed) || /cannot launch/.test(deepspeed),
      deepspeed.slice(0, 200),
    );
    await page.selectOption(byTestId("launch-framework"), "megatron");
  });

  it("restricts the search to what the chosen framework can launch", async () => {
    const titan = await site.context.newPage();
    await titan.goto(
      `${site.origin}/paraplan/?model=llama2-7b&gpu-infos=h100:16&num-gpus=16&global-batch-size=64&seq-length=4096&framework=torchtitan`,
    );
    await titan.waitForSelector(byTestId("search-button"));
    assert.equal(
      await titan.inputValue(byTestId("framework-select")),
      "torchtitan",
    );
    await search(titan);
    assert.ok((await rowTexts(titan)).length > 0);
    await titan.locator(byTestId("result-row")).first().click();
    assert.equal(
      await titan.inputValue(byTestId("launch-framework")),
      "torchtitan",
    );
    const view = titan.locator(byTestId("launch-view"));
    assert.equal(await view.locator(byTestId("launch-unsupported")).count(), 0);
    assert.match(await view.innerText(), /job\.toml/);
    assert.match(await urlOf(titan), /framework=torchtitan/);
    await titan.selectOption(byTestId("framework-select"), "megatron");
    assert.doesNotMatch(await urlOf(titan), /framework=/);
    await view.scrollIntoViewIfNeeded();
    await screenshot("03c-framework-torchtitan", titan);
    await titan.close();
  });

  it("exports the results as CSV and JSON", async () => {
    const [csv] = await Promise.all([
      page.waitForEvent("download"),
      page.click(byTestId("export-csv")),
    ]);
    const lines = readFileSync(await csv.path(), "utf8")
      .trim()
      .split("\r\n");
    assert.match(lines[0], /^rank,tokens_per_s_per_gpu,iteration_time_s,mfu,/);
    assert.equal(lines.length, 11);
    const [json] = await Promise.all([
      page.waitForEvent("download"),
      page.click(byTestId("export-json")),
    ]);
    const exported = JSON.parse(readFileSync(await json.path(), "utf8"));
    assert.equal(exported.strategies.length, 10);
    assert.equal(exported.request.scenario.cluster.num_gpus, 256);
  });

  it("round-trips the page state through the URL", async () => {
    const url = await urlOf(page);
    const rows = await rowTexts(page);
    const copy = await site.context.newPage();
    await copy.goto(url);
    await copy.waitForFunction(
      (selector) => document.querySelectorAll(selector).length === 10,
      byTestId("result-row"),
      {
        timeout: SEARCH_TIMEOUT_MS,
      },
    );
    for (const id of [
      "model-select",
      "cluster-input",
      "num-gpus",
      "global-batch-size",
      "seq-length",
    ]) {
      assert.equal(
        await copy.inputValue(byTestId(id)),
        await page.inputValue(byTestId(id)),
        id,
      );
    }
    assert.deepEqual(await rowTexts(copy), rows);
    await copy.waitForSelector(`${byTestId("schedule")}[data-state="ready"]`, {
      timeout: 60_000,
    });
    assert.equal(
      await urlOf(copy),
      url,
      "the reopened page writes the same URL",
    );
    await copy.close();
  });

  it("edits the cluster in the GPU editor, hardware changes included", async () => {
    const cluster = () => page.inputValue(byTestId("cluster-input"));
    const row = (n) => page.locator(".gpu-row").nth(n);
    await page.fill(byTestId("cluster-input"), "a800:128");
    await page.click(".gpu-editor button.link"); // add a GPU type
    assert.match(await cluster(), /^a800:128,[a-z0-9-]+$/);
    await row(1).locator("select").selectOption("h800");
    await row(1).locator("input").fill("160");
    assert.equal(await cluster(), "a800:128,h800:160");
    await row(1).locator("button").first().click(); // change the hardware
    await page.locator("#gpu-h800-inter_gb_per_s").fill("12.5");
    assert.match(await urlOf(page), /gpu\.h800\.inter_gb_per_s=12\.5/);
    await search(page);
    const slower = await rowTexts(page);
    assert.equal(slower.length, 10);
    assert.ok(
      parseFloat(slower[0].split("\t")[1].replace(/,/g, "")) < 882,
      slower[0],
    );
    await row(1).locator("button").last().click(); // remove h800
    assert.equal(await cluster(), "a800:128");
    // GPUs per node defaults, as in the core, to the fewest GPUs a host of the types launches
    // (GB200 NVL72: 4 per compute tray, while its NVLink domain is 72).
    const perNode = () =>
      page.getAttribute(byTestId("gpus-per-node"), "placeholder");
    await page.fill(byTestId("cluster-input"), "gb200:72");
    assert.equal(await perNode(), "auto (4)");
    await page.fill(byTestId("cluster-input"), "h100:64,a800:64");
    assert.equal(await perNode(), "auto (8)");
    await page.fill(byTestId("cluster-input"), "a800:128");
    assert.doesNotMatch(await urlOf(page), /gpu\.h800/);
  });

  it("shows a mistake at its field, then recovers", async () => {
    await page.fill(byTestId("num-gpus"), "25x");
    const error = page.locator(byTestId("error-message"));
    await error.waitFor();
    assert.match(await error.innerText(), /whole number/);
    assert.ok(
      await page.locator(".field.invalid " + byTestId("num-gpus")).isVisible(),
    );
    await page.click(byTestId("search-button"));
    assert.equal(
      await page.evaluate(() => document.activeElement.dataset.testid),
      "num-gpus",
    );

    await page.fill(byTestId("cluster-input"), "a800:128,v100:8");
    assert.match(
      await page.locator(".field-error").first().innerText(),
      /Unknown GPU type “v100”/,
    );
    await screenshot("04-field-errors");

    // A mistake only the module finds comes back with its JSON path, at the field.
    await fillJob(page, { "cluster-input": "a800:64", "num-gpus": "64" });
    assert.equal(await error.count(), 0);
    await page.selectOption(byTestId("model-select"), "custom");
    await page.locator(".custom-model input").nth(5).fill("7"); // query groups: 7 does not divide 64 heads
    await page.click(byTestId("search-button"));
    await error.waitFor();
    assert.match(await error.innerText(), /^model\.num_query_groups: /);
    await screenshot("05-module-error");

    await page.locator(".custom-model input").nth(5).fill("8");
    assert.equal(await error.count(), 0);
    await search(page);
    assert.ok((await rowTexts(page)).length > 0);
    await page.selectOption(byTestId("model-select"), "llama2-70b");
  });

  it("a custom model copied from a preset keeps every key of it", async () => {
    // The custom form was filled from llama2-70b above (untied embeddings, no biases).
    await search(page);
    const fromPreset = await rowTexts(page);
    await page.selectOption(byTestId("model-select"), "custom");
    const other = page.locator(".custom-model textarea");
    assert.match(
      await other.inputValue(),
      /"untie_embeddings_and_output_weights":true/,
    );
    await search(page);
    assert.deepEqual(await rowTexts(page), fromPreset);

    const saved = await other.inputValue();
    await other.fill('{"add_bias_linear": tru');
    const error = page.locator(byTestId("error-message"));
    await error.waitFor();
    assert.match(await error.innerText(), /JSON object/);
    await other.fill('{"num_layers": 4}');
    assert.match(await error.innerText(), /num_layers is already set/);
    await other.fill(saved);
    assert.equal(await error.count(), 0);
    await page.selectOption(byTestId("model-select"), "llama2-70b");
  });

  it("imports a Hugging Face config.json, with a live parameter count", async () => {
    const HF = join(HERE, "..", "unit", "data", "hf");
    const imported = await site.context.newPage();
    await imported.goto(`${site.origin}/paraplan/`);
    await imported.waitForSelector(byTestId("search-button"));
    const parameters = async (target) => {
      const line = target.locator(byTestId("custom-parameters"));
      await line.waitFor();
      return line;
    };
    const countChanged = (target, before) =>
      target.waitForFunction(
        ([id, previous]) => {
          const line = document.querySelector(id);
          return (
            line?.dataset.parameters && line.dataset.parameters !== previous
          );
        },
        [byTestId("custom-parameters"), before],
      );

    // Qwen/Qwen3-30B-A3B's config.json, pasted.
    await imported.click(`${byTestId("hf-import")} summary`);
    await imported.fill(
      byTestId("hf-config-input"),
      readFileSync(join(HF, "Qwen3-30B-A3B.json"), "utf8"),
    );
    await imported.click(byTestId("hf-import-button"));
    await imported.locator(byTestId("hf-unmapped")).waitFor();
    assert.equal(await imported.inputValue(byTestId("model-select")), "custom");
    assert.equal(
      await imported.inputValue(byTestId("custom-num_experts")),
      "128",
    );
    assert.equal(
      await imported.inputValue(byTestId("custom-name")),
      "Qwen3MoeForCausalLM",
    );
    const summary = await imported
      .locator(byTestId("hf-import-result"))
      .innerText();
    assert.match(summary, /Imported Qwen3MoeForCausalLM/);
    // Every key is mapped or ignored with its reason since the model prices Qwen3's QK norms
    // (qk_norm, `qk_layernorm`): nothing is reported unsupported.
    assert.equal(
      await imported
        .locator(`${byTestId("hf-unmapped")} li[data-status="unsupported"]`)
        .count(),
      0,
    );
    assert.match(
      await imported.locator(byTestId("hf-unmapped")).innerText(),
      /rope_theta/,
    );
    await countChanged(imported, undefined);
    const line = await parameters(imported);
    const total = Number(await line.getAttribute("data-parameters"));
    assert.ok(Math.abs(total - 30.5e9) / 30.5e9 < 0.002, `${total}`);
    assert.match(
      await line.innerText(),
      /^30\.5 B parameters · 3\.3\d* B active$/,
    );
    await screenshot("10-hf-import", imported);

    // Typing changes the count: half the layers, about half the parameters.
    await imported.fill(byTestId("custom-num_layers"), "24");
    await countChanged(imported, String(total));
    const half = Number(await line.getAttribute("data-parameters"));
    assert.ok(half < 0.55 * total && half > 0.45 * total, `${half}`);

    // The imported model survives the URL, and the count with it.
    const reopened = await site.context.newPage();
    await reopened.goto(await urlOf(imported));
    await reopened.waitForSelector(byTestId("custom-parameters"));
    assert.equal(
      await reopened.inputValue(byTestId("custom-num_layers")),
      "24",
    );
    assert.match(
      await reopened.inputValue(".custom-model textarea"),
      /"kv_channels":128/,
    );
    await countChanged(reopened, undefined);
    assert.equal(
      await reopened
        .locator(byTestId("custom-parameters"))
        .getAttribute("data-parameters"),
      String(half),
    );
    await reopened.close();

    // An uploaded file (openai/gpt-oss-20b), then a bad config naming its key.
    await imported.setInputFiles(
      byTestId("hf-config-file"),
      join(HF, "gpt-oss-20b.json"),
    );
    await imported.waitForFunction(
      (id) => document.querySelector(id)?.value === "2880",
      byTestId("custom-hidden_size"),
    );
    await imported.fill(
      byTestId("hf-config-input"),
      '{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "hidden_size": 0}',
    );
    await imported.click(byTestId("hf-import-button"));
    const error = imported.locator(byTestId("hf-import-error"));
    await error.waitFor();
    assert.match(
      await error.innerText(),
      /hidden_size: expected a positive integer, got 0/,
    );
    assert.equal(
      await imported.inputValue(byTestId("custom-hidden_size")),
      "2880",
    );
    await imported.selectOption(byTestId("language-select"), "zh");
    assert.equal(
      await imported.locator(`${byTestId("hf-import")} summary`).innerText(),
      "导入 Hugging Face config.json",
    );
    await imported.waitForFunction(
      (id) => document.querySelector(id)?.textContent.includes("参数"),
      byTestId("custom-parameters"),
    );
    await screenshot("11-hf-import-zh", imported);
    await imported.close();
  });

  it("cancels a long search and keeps working", async () => {
    // Tens of seconds of search: DeepSeek-V3 on three GPU types, 1,536 GPUs (llama3.1-405b's
    // 1,536 now ends in under a second, before the cancel button can be clicked).
    await page.selectOption(byTestId("model-select"), "deepseek-v3");
    await fillJob(page, {
      "cluster-input": "a800:512,h800:512,h100:512",
      "num-gpus": "1536",
      "global-batch-size": "4096",
      "seq-length": "4096",
    });
    await page.click(byTestId("search-button"));
    await page
      .locator(byTestId("cancel-button"))
      .first()
      .click({ timeout: 30_000 });
    await page.waitForFunction(
      () => !document.querySelector('[data-testid="search-button"]').disabled,
    );
    assert.match(
      await page.locator(byTestId("search-status")).innerText(),
      /cancelled/,
    );
    await page.selectOption(byTestId("model-select"), "llama2-70b");
    await fillJob(page, {
      "cluster-input": "h100:64",
      "num-gpus": "64",
      "global-batch-size": "512",
      "seq-length": "4096",
    });
    await search(page);
    assert.match((await rowTexts(page))[0], /h100/);
  });

  it("switches to Chinese and keeps it in the URL", async () => {
    await page.selectOption(byTestId("language-select"), "zh");
    assert.match(
      await page.locator("header").first().innerText(),
      /大语言模型/,
    );
    assert.match(await urlOf(page), /lang=zh/);
    await page.locator(byTestId("result-row")).first().click();
    await page.waitForSelector(`${byTestId("schedule")}[data-state="ready"]`, {
      timeout: 60_000,
    });
    await screenshot("06-chinese");
    await page.selectOption(byTestId("language-select"), "en");
  });

  it("charts throughput at every cluster size, streamed from a pool of workers", async () => {
    await page.click(byTestId("tab-scaling"));
    await fillJob(page, { "cluster-input": "a800:256", "num-gpus": "256" });
    await fillJob(page, {
      "scale-from": "64",
      "scale-to": "1024",
      "scale-step": "64",
      "scale-budget": "2",
    });
    await page.click(byTestId("scaling-button"));
    await waitForScalingRows(page, 16, SEARCH_TIMEOUT_MS);
    const gpus = await page
      .locator(`${byTestId("scaling-row")} td:first-child`)
      .allInnerTexts();
    assert.deepEqual(
      gpus,
      Array.from({ length: 16 }, (_, i) => ((i + 1) * 64).toLocaleString("en")),
    );
    assert.ok(await page.locator(".scaling-chart canvas").isVisible());
    assert.match(
      await page.locator(byTestId("scaling-summary")).innerText(),
      /16 of 16 sizes searched/,
    );
    // Hovering a point shows its best strategy.
    await page.locator(".scaling-chart canvas").hover();
    await screenshot("07-scaling");
    await page.click(byTestId("tab-strategies"));
  });

  it("sweeps a hardware parameter and charts the best throughput at each value", async () => {
    await page.click(byTestId("tab-sweep"));
    await fillJob(page, {
      "cluster-input": "a800:64",
      "num-gpus": "64",
      "sweep-first": "hbm_gib=40:120:40",
      "sweep-second": "inter_node.gb_per_s=25,50",
    });
    await page.click(byTestId("sweep-button"));
    await page.waitForFunction(
      () => {
        const rows = document.querySelectorAll('[data-testid="sweep-row"]');
        return (
          rows.length === 6 &&
          [...rows].every((row) => row.children[2].textContent.trim() !== "…")
        );
      },
      null,
      { timeout: SEARCH_TIMEOUT_MS },
    );
    const first = await page
      .locator(`${byTestId("sweep-row")} td:first-child`)
      .allInnerTexts();
    assert.deepEqual(first, ["40", "40", "80", "80", "120", "120"]);
    assert.ok(await page.locator(".sweep-chart canvas").isVisible());
    assert.match(await urlOf(page), /sweep=hbm_gib/);
    await screenshot("07b-sweep");
    await fillJob(page, { "sweep-first": "hbm=40" });
    await page.click(byTestId("sweep-button"));
    await page.waitForSelector(byTestId("error-message"));
    assert.match(
      await page.locator(byTestId("error-message")).first().innerText(),
      /NAME=FROM:TO:STEP/,
    );
    await fillJob(page, {
      "sweep-first": "hbm_gib=40:200:20",
      "sweep-second": "",
      "cluster-input": "a800:256",
      "num-gpus": "256",
    });
    await page.click(byTestId("tab-strategies"));
  });

  it("offers an embed snippet, and a compact page for frames", async () => {
    await page.click(byTestId("share-embed"));
    const snippet = await page.inputValue(byTestId("embed-snippet"));
    assert.match(
      snippet,
      /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/paraplan\/\?[^"]*embed=1/,
    );
    await page.keyboard.press("Escape");
    const src = snippet.match(/src="([^"]+)"/)[1].replace(/&amp;/g, "&");
    const embedded = await site.context.newPage();
    await embedded.setViewportSize({ width: 900, height: 700 });
    await embedded.goto(src);
    await embedded.waitForSelector(byTestId("result-row"), {
      timeout: SEARCH_TIMEOUT_MS,
    });
    assert.equal(await embedded.locator(".tagline").isVisible(), false);
    assert.equal(
      await embedded.locator(byTestId("search-button")).isVisible(),
      false,
    );
    await screenshot("08-embed", embedded);
    await embedded.close();
  });

  it("survives a hostile URL: shows its values with errors, runs nothing", async () => {
    const hostile = new URLSearchParams({
      model: '<img src=x onerror="window.pwned=1">',
      "gpu-infos": "a800:1:2,,<b>",
      "num-gpus": "-5",
      lang: "xx",
      sort: "nope:up",
      selected: "abc",
      view: "nope",
      tp: "1e3",
      "gpu.__proto__.hbm_gib": "1",
      "gpu.a800.hbm_gib": "lots",
      run: "1",
    });
    const odd = await site.context.newPage();
    await odd.goto(`${site.origin}/paraplan/?${hostile}`);
    await odd.locator(byTestId("error-message")).first().waitFor();
    assert.equal(await odd.evaluate(() => window.pwned), undefined);
    assert.equal(await odd.locator("img[src=x]").count(), 0);
    assert.equal(await odd.inputValue(byTestId("num-gpus")), "-5");
    assert.equal(
      await odd.inputValue(byTestId("cluster-input")),
      "a800:1:2,,<b>",
    );
    assert.ok((await odd.locator(".field-error").count()) >= 2);
    assert.equal(await odd.locator(byTestId("result-row")).count(), 0);
    await fillJob(odd, { "cluster-input": "a800:64", "num-gpus": "64" });
    await odd.selectOption(byTestId("model-select"), "llama2-7b");
    await odd.fill("details.pinned input >> nth=0", ""); // tp
    await odd.fill("#gpu-a800-hbm_gib", ""); // a800's memory
    assert.equal(await odd.locator(byTestId("error-message")).count(), 0);
    await search(odd);
    assert.ok((await rowTexts(odd)).length > 0);
    await screenshot("09-hostile-url-recovered", odd);
    await odd.close();
  });

  it("made no request to another host and logged no error", () => {
    assert.ok(requests.length > 5);
    const elsewhere = requests.filter(
      (url) => !url.startsWith(`${site.origin}/`) && !url.startsWith("blob:"),
    );
    assert.deepEqual(elsewhere, []);
    assert.ok(
      requests.some((url) => url.endsWith(".wasm")),
      "the module came from the site",
    );
    assert.deepEqual(site.consoleErrors, []);
  });
});
