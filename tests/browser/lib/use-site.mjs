// One browser test suite's site: registers the suite's before and after hooks around
// startSite() (../site.mjs: the production build served from a sub-path, Chromium, a desktop
// context that collects console errors). The returned object holds origin, browser, context
// and consoleErrors once the suite's first before hook has run; a suite's own before hooks,
// registered after this call, run after it.
import { after, before } from "node:test";
import { startSite } from "../site.mjs";

export function useSite(options = {}) {
  const site = {};
  before(async () => {
    Object.assign(site, await startSite(options));
  });
  after(async () => {
    await site.close?.();
  });
  return site;
}
