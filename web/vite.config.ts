import { defineConfig, type Plugin } from "vite";

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

export default defineConfig({
  // Relative URLs: the site works from any base path on any static server.
  base: "./",
  worker: { format: "es" },
  build: { target: "es2022", chunkSizeWarningLimit: 800 },
  plugins: [relaxCspForDevServer()],
});
