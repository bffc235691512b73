// Issue 30 item 8 in Chromium on the production build: the worker and the WebAssembly module
// start before the page draws its form, and a link that runs a search (run=1) sends it to the
// worker before the form is drawn, so that the module searches while the page loads. Read from
// the page's own User Timing marks ("paraplan:<name>", web/src/worker/marks.ts) and its
// resource timing.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { useSite } from "./lib/use-site.mjs";
import { SCREENSHOTS } from "./site.mjs";

// The latest the page builds its form for a run=1 link whose first rows are not drawn yet
// (web/src/state/first-rows.ts FORM_DEADLINE_MS).
const FORM_DEADLINE_MS = 2000;

const TIMEOUT_MS = 120_000;
const JOB =
  "model=llama2-70b&gpu-infos=a800:256&num-gpus=256&global-batch-size=512&seq-length=4096";
const byTestId = (id) => `[data-testid="${id}"]`;

// The page's marks and when it began to fetch the module (ms since navigation), and the
// worker's marks on the page's clock.
async function startup(page) {
  const own = await page.evaluate(() => ({
    origin: performance.timeOrigin,
    marks: Object.fromEntries(
      performance
        .getEntriesByType("mark")
        .filter((mark) => mark.name.startsWith("paraplan:"))
        .map((mark) => [mark.name.slice(9), mark.startTime]),
    ),
    wasm: performance
      .getEntriesByType("resource")
      .filter((entry) => entry.name.endsWith(".wasm"))
      .map((entry) => entry.startTime),
  }));
  const workers = [];
  for (const worker of page.workers()) {
    workers.push(
      await worker.evaluate((pageOrigin) => {
        const shift = performance.timeOrigin - pageOrigin;
        return Object.fromEntries(
          performance
            .getEntriesByType("mark")
            .filter((mark) => mark.name.startsWith("paraplan:"))
            .map((mark) => [mark.name.slice(9), mark.startTime + shift]),
        );
      }, own.origin),
    );
  }
  return { ...own, workers };
}

describe("issue 30: the module starts before the form is drawn (production build)", () => {
  const site = useSite();

  it("a link with run=1 sends its search before the form is drawn, and it is searched once", async () => {
    const page = await site.context.newPage();
    await page.goto(`${site.origin}/paraplan/?lang=en&${JOB}&run=1`);
    await page.waitForSelector(
      `${byTestId("provisional-row")}, ${byTestId("result-row")}`,
      { timeout: TIMEOUT_MS },
    );
    // The form comes after the first rows (issue 30 item 8).
    await page.waitForSelector(byTestId("search-button"), {
      timeout: TIMEOUT_MS,
    });
    const { marks, wasm, workers } = await startup(page);
    const order = JSON.stringify({ marks, wasm, workers });
    for (const name of [
      "entry",
      "worker-created",
      "search-requested",
      "results-drawn",
      "first-rows-drawn",
      "form-drawn",
    ]) {
      assert.ok(marks[name] !== undefined, `no ${name} mark: ${order}`);
    }
    assert.ok(marks["worker-created"] < marks["form-drawn"], order);
    assert.ok(marks["search-requested"] < marks["form-drawn"], order);
    // The first rows do not wait for the form: the results' frame is drawn first, the rows
    // in it, and the form after them, or after its deadline where the rows are slower
    // (web/src/state/first-rows.ts FORM_DEADLINE_MS: 2 s after navigation, which a loaded
    // machine's first rows may miss).
    assert.ok(marks["results-drawn"] < marks["first-rows-drawn"], order);
    assert.ok(
      marks["form-drawn"] >
        Math.min(marks["first-rows-drawn"], FORM_DEADLINE_MS),
      order,
    );
    // The module is fetched once, by the page, before the form is drawn.
    assert.equal(wasm.length, 1, order);
    assert.ok(wasm[0] < marks["form-drawn"], order);
    // One worker searched (the page's first search took the early one over), and it received
    // the page's compiled module rather than fetching its own.
    const searching = workers.filter(
      (worker) => worker["search-start"] !== undefined,
    );
    assert.equal(searching.length, 1, order);
    assert.ok(searching[0]["module-received"] !== undefined, order);
    // The worker's warm-up (web/src/worker/warm-up.ts) never runs ahead of a search that is
    // waiting: where the search arrived before the warm-up could start, no warm-up search ran
    // (on a loaded machine the page's search may arrive after the module is ready; then the
    // warm-up may have begun, and the search waits for one warm-up search at most).
    const received = searching[0]["search-received"];
    assert.ok(received !== undefined, order);
    if (received < searching[0]["warm-up-start"]) {
      assert.equal(searching[0]["warm-up-end"], undefined, order);
    }
    await page.screenshot({
      path: join(SCREENSHOTS, "startup-first-rows.png"),
      fullPage: true,
    });
    await page.waitForSelector(byTestId("result-row"), { timeout: TIMEOUT_MS });
    // The final ranking is the early search's result: the rows are there, and no second
    // search ran in that worker (its marks are set once; a second search would have left the
    // page busy and the button disabled).
    assert.equal(
      await page.locator(byTestId("search-button")).isDisabled(),
      false,
    );
    await page.close();
  });

  it("a link without run=1 starts the worker and the module's fetch before the form, and searches nothing", async () => {
    const page = await site.context.newPage();
    await page.goto(`${site.origin}/paraplan/?lang=en&${JOB}`);
    await page.waitForSelector(byTestId("search-button"), {
      timeout: TIMEOUT_MS,
    });
    await page.waitForFunction(
      () => performance.getEntriesByName("paraplan:module-compiled").length > 0,
      null,
      { timeout: TIMEOUT_MS },
    );
    const { marks, wasm } = await startup(page);
    const order = JSON.stringify({ marks, wasm });
    assert.ok(marks["worker-created"] < marks["form-drawn"], order);
    assert.ok(wasm[0] < marks["form-drawn"], order);
    assert.equal(marks["search-requested"], undefined, order);
    assert.equal(await page.locator(byTestId("result-row")).count(), 0);
    await page.close();
  });

  it("without run=1 the worker warms the search's code up while the form is read, then searches on the click", async () => {
    const page = await site.context.newPage();
    await page.goto(`${site.origin}/paraplan/?lang=en&${JOB}`);
    await page.waitForSelector(byTestId("search-button"), {
      timeout: TIMEOUT_MS,
    });
    // The warm-up's searches (the page's default job, dense and MoE, each stopped at its first
    // rows) end with a mark in the worker.
    const warmed = () =>
      Promise.all(
        page
          .workers()
          .map((worker) =>
            worker.evaluate(
              () =>
                performance.getEntriesByName("paraplan:warm-up-end").length > 0,
            ),
          ),
      ).then((done) => done.includes(true));
    const deadline = Date.now() + TIMEOUT_MS;
    while (!(await warmed())) {
      assert.ok(Date.now() < deadline, "the worker's warm-up never ended");
      await page.waitForTimeout(100);
    }
    await page.click(byTestId("search-button"));
    await page.waitForSelector(
      `${byTestId("provisional-row")}, ${byTestId("result-row")}`,
      { timeout: TIMEOUT_MS },
    );
    const { workers } = await startup(page);
    const searching = workers.filter(
      (worker) => worker["search-start"] !== undefined,
    );
    const order = JSON.stringify(workers);
    assert.equal(searching.length, 1, order);
    assert.ok(
      searching[0]["warm-up-end"] < searching[0]["search-start"],
      order,
    );
    await page.close();
  });

  it("a link with run=1 has the worker warm nothing up, even where its search comes after the module is ready", async () => {
    // The early search's chunk is held back until the worker's module is ready, as on a loaded
    // machine: the worker must not start a warm-up search that the page's search then waits
    // for (main.ts tells it at once that a search follows; worker/warm-up.ts).
    const page = await site.context.newPage();
    const moduleReady = async () => {
      for (const worker of page.workers()) {
        const ready = await worker
          .evaluate(
            () =>
              performance.getEntriesByName("paraplan:module-ready").length > 0,
          )
          .catch(() => false);
        if (ready) return true;
      }
      return false;
    };
    await page.route(/early-search-[\w-]+\.js$/, async (route) => {
      const deadline = Date.now() + TIMEOUT_MS;
      while (!(await moduleReady()) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      // The warm-up would start in the worker's next task.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await route.continue();
    });
    await page.goto(`${site.origin}/paraplan/?lang=en&${JOB}&run=1`);
    await page.waitForSelector(
      `${byTestId("provisional-row")}, ${byTestId("result-row")}`,
      { timeout: TIMEOUT_MS },
    );
    const { workers } = await startup(page);
    const order = JSON.stringify(workers);
    const searching = workers.filter(
      (worker) => worker["search-start"] !== undefined,
    );
    assert.equal(searching.length, 1, order);
    assert.ok(
      searching[0]["module-ready"] < searching[0]["search-received"],
      order,
    );
    assert.equal(searching[0]["warm-up-end"], undefined, order);
    await page.close();
  });

  it("logs no console errors", () => {
    assert.deepEqual(site.consoleErrors, []);
  });
});
