// The production build served from a sub-path by a plain static server, with Chromium and a
// desktop context that collects console errors: what each browser test file starts from.
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./launch.mjs";
import { serveDirectory } from "./static-server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = join(HERE, "..", "..", "web", "dist");
export const SCREENSHOTS = join(HERE, "screenshots");

// contextOptions: more options for the browser context (e.g. acceptDownloads).
export async function startSite({ contextOptions = {} } = {}) {
  assert.ok(
    existsSync(join(DIST, "index.html")),
    `${DIST} is missing: run npm run build in web/`,
  );
  const site = mkdtempSync(join(tmpdir(), "paraplan-site-"));
  cpSync(DIST, join(site, "paraplan"), { recursive: true });
  const { server, origin } = await serveDirectory(site);
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    ...contextOptions,
  });
  const consoleErrors = [];
  context.on("page", (opened) => {
    opened.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    opened.on("pageerror", (error) => consoleErrors.push(error.message));
  });
  const close = async () => {
    await browser.close();
    server.close();
    rmSync(site, { recursive: true, force: true });
  };
  return { origin, browser, context, consoleErrors, close };
}
