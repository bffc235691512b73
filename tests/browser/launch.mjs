// Debian's Chromium driven by playwright-core: no browser is downloaded.
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      // Containers (CI's included) often have a tiny /dev/shm, which crashes renderers.
      "--disable-dev-shm-usage",
    ],
  });
}
