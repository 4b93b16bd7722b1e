import { defineConfig } from "vite";

// The web workbench: a Preact app compiled by Vite's own JSX transform (no plugin), into one
// script and one stylesheet that `nbook serve` serves from dist/workbench/. Everything is bundled: the
// page makes no request outside the server it came from.
export default defineConfig({
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  resolve: {
    alias: { react: "preact/compat", "react-dom": "preact/compat" },
  },
  build: {
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
    // Hashed names can be cached for ever; index.html is the only file served without caching.
    assetsDir: "assets",
  },
});
