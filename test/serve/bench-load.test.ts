import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));

describe("npm run bench -- serve", () => {
  it("loads its suite under tsx with the project's tsconfig, as the bench runner does", () => {
    const r = spawnSync(TSX, ["test/serve/bench-load.fixture.ts"], { cwd: ROOT, encoding: "utf8" });
    expect(r.stderr).not.toContain("Cannot find module");
    expect(r.stdout.trim()).toBe("serve");
  });
});
