// The workbench's JavaScript, as the browser downloads it compressed, stays under 250 KB gzipped
// (it now bundles the book's Markdown renderer, markdown-it with its entity tables).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";

const ASSETS = fileURLToPath(new URL("../../dist/workbench/assets/", import.meta.url));

describe("workbench bundle", () => {
  it("is under 250 KB of gzipped JavaScript", () => {
    const scripts = readdirSync(ASSETS).filter((f) => f.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(0);
    const gzipped = scripts.reduce(
      (n, f) => n + gzipSync(readFileSync(join(ASSETS, f)), { level: 9 }).length,
      0,
    );
    console.log(`workbench JS: ${scripts.length} file(s), ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
    expect(gzipped).toBeLessThan(250 * 1024);
  });
});
