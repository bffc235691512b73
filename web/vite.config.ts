import { defineConfig, type Plugin } from "vite";
import type { OutputBundle } from "rollup";

// The dev server injects CSS as <style> elements, which index.html's strict
// Content-Security-Policy forbids; allow inline styles there only. The
// production build keeps the policy as written.
function relaxCspForDevServer(): Plugin {
  return {
    name: "paraplan:relax-csp-for-dev-server",
    apply: "serve",
    transformIndexHtml: (html) =>
      html.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
  };
}

// Links in the built index.html that start fetching what a search's first rows wait for while
// the HTML is parsed, rather than once the entry script runs (issue 30 item 8): the WebAssembly
// module (worker/compiled.ts fetches and compiles it at once; the preload is that request, as
// same-origin CORS) and the chunks main.ts imports at once (app.ts, and state/early-search.ts
// with the bundled catalogue), with the chunks they import.
function preloadStartup(): Plugin {
  const startup = /\/src\/(app|state\/early-search)\.ts$/;
  return {
    name: "paraplan:preload-startup",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler: (_html, { bundle }) => {
        if (bundle === undefined) return [];
        const link = (attrs: Record<string, string>) => ({
          tag: "link",
          attrs: { ...attrs, crossorigin: "" },
          injectTo: "head" as const,
        });
        const wasm = Object.keys(bundle).filter((name) => name.endsWith(".wasm"));
        return [
          ...wasm.map((name) =>
            link({ rel: "preload", as: "fetch", type: "application/wasm", href: `./${name}` }),
          ),
          ...startupChunks(bundle, startup).map((name) =>
            link({ rel: "modulepreload", href: `./${name}` }),
          ),
        ];
      },
    },
  };
}

// The dynamic entries whose source matches `pattern`, and every chunk they import, less the
// entry chunk and what it imports (index.html loads those already).
function startupChunks(bundle: OutputBundle, pattern: RegExp): string[] {
  const chunks = Object.values(bundle).flatMap((file) => (file.type === "chunk" ? [file] : []));
  const loaded = new Set(
    chunks.filter((c) => c.isEntry).flatMap((c) => [c.fileName, ...c.imports]),
  );
  const wanted = new Set<string>();
  const add = (name: string): void => {
    if (loaded.has(name) || wanted.has(name)) return;
    wanted.add(name);
    const chunk = bundle[name];
    if (chunk?.type === "chunk") chunk.imports.forEach(add);
  };
  for (const chunk of chunks) {
    if (chunk.isDynamicEntry && pattern.test(chunk.facadeModuleId ?? "")) add(chunk.fileName);
  }
  return [...wanted];
}

export default defineConfig(({ mode }) => ({
  // Relative URLs: the site works from any base path on any static server.
  base: "./",
  worker: { format: "es" },
  build: { target: "es2022", chunkSizeWarningLimit: 800 },
  plugins: [relaxCspForDevServer(), preloadStartup()],
  // Under vitest only: tests read the core's list of text ids from the repository
  // (i18n/core-texts.test.ts reads core/src/model/text_ids.hpp).
  ...(mode === "test" ? { server: { fs: { allow: [".."] } } } : {}),
}));
