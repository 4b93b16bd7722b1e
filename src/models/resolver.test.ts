import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import type { NbError } from "../core/errors.js";
import { createModelResolver } from "./resolver.js";

const ws = mkdtempSync(join(tmpdir(), "nb-resolver-"));
mkdirSync(join(ws, ".nbook"));
writeFileSync(join(ws, "cfg.yaml"), "turns:\n  - text: first\n  - text: second\n");
writeFileSync(join(ws, "cli.yaml"), "turns:\n  - text: one\n  - text: two\n");
writeFileSync(
  join(ws, ".nbook", "config.json"),
  JSON.stringify({
    providers: {
      demo: { kind: "scripted", script: "cfg.yaml" },
      local: {
        kind: "openai-compatible",
        baseURL: "http://127.0.0.1:9/v1",
        models: { small: { contextWindow: 4096 } },
      },
    },
    defaultModel: "demo/x",
  }),
);

describe("createModelResolver", () => {
  it("a --script resolver hands out one scripted model that keeps its place across runs", async () => {
    const resolve = createModelResolver({
      workspaceRoot: ws,
      script: join(ws, "cli.yaml"),
      scriptContextWindow: 2000,
    });
    const a = resolve(undefined, "leader.default");
    expect(a).toMatchObject({ ref: "scripted/cli.yaml", source: "script", contextWindow: 2000 });
    expect((await generateText({ model: a.model, prompt: "x" })).text).toBe("one");
    const b = resolve("scripted/cli.yaml", "leader.default");
    expect(b.model).toBe(a.model);
    expect((await generateText({ model: b.model, prompt: "x" })).text).toBe("two");
  });

  it("reuses the model of a configured scripted provider for the same reference", async () => {
    const resolve = createModelResolver({ workspaceRoot: ws, env: {} });
    const first = resolve(undefined, "leader.default");
    expect(first).toMatchObject({ ref: "demo/x", source: "config_default" });
    expect((await generateText({ model: first.model, prompt: "x" })).text).toBe("first");
    const pinned = resolve("demo/x", "leader.default");
    expect(pinned.source).toBe("pinned");
    expect(pinned.model).toBe(first.model);
    expect((await generateText({ model: pinned.model, prompt: "x" })).text).toBe("second");
  });

  it("applies --model over the pinned reference and profile defaults under it", () => {
    const withOverride = createModelResolver({ workspaceRoot: ws, override: "local/small", env: {} });
    expect(withOverride("demo/x", "writer")).toMatchObject({
      ref: "local/small",
      source: "override",
      contextWindow: 4096,
    });
    const withProfile = createModelResolver({
      workspaceRoot: ws,
      env: {},
      profileDefault: (k) => (k === "writer" ? "local/small" : undefined),
    });
    expect(withProfile(undefined, "writer")).toMatchObject({ ref: "local/small", source: "profile" });
    expect(withProfile(undefined, "director")).toMatchObject({ ref: "demo/x", source: "config_default" });
  });

  it("a session pinned to a --script model asks for --script again", () => {
    const resolve = createModelResolver({ workspaceRoot: ws, env: {} });
    try {
      resolve("scripted/cli.yaml", "leader.default");
      expect.unreachable();
    } catch (e) {
      expect((e as NbError).code).toBe("config_error");
      expect((e as NbError).message).toContain("--script");
    }
  });
});
