import { createHash } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countWords } from "../../src/core/text.js";
import { readEvents, type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
let root: string;
beforeEach(async () => {
  fx = await serveFixture();
  root = fx.bed.project.root;
  writeFileSync(join(root, "lorebook", "mira.md"), "Mira is seventeen.\n");
});
afterEach(async () => {
  await fx.close();
});

const sha = (t: string) => createHash("sha256").update(t, "utf8").digest("hex");

interface ApiError {
  error: { code: string; message: string; fields: unknown[]; details?: Record<string, unknown> };
}

describe("files: tree, read, write", () => {
  it("the tree lists the project without .nbook/, folders first, with word counts for Markdown", async () => {
    mkdirSync(join(root, "manuscript", "01-bell"), { recursive: true });
    writeFileSync(join(root, "manuscript", "01-bell", "index.md"), "The bell rang twice. 钟响了\n");
    const res = await fx.api("GET", "/api/projects/novel/files/tree");
    expect(res.status).toBe(200);
    const { tree } = (await res.json()) as {
      tree: { children: { name: string; kind: string; children?: unknown[] }[] };
    };
    const names = tree.children.map((c) => c.name);
    expect(names).not.toContain(".nbook");
    expect(names).toContain("lorebook");
    expect(names).toContain("project.yaml");
    const dirs = tree.children.filter((c) => c.kind === "dir").length;
    expect(tree.children.slice(0, dirs).every((c) => c.kind === "dir")).toBe(true);
    const manuscript = tree.children.find((c) => c.name === "manuscript") as unknown as {
      children: { name: string; children: { path: string; words: number }[] }[];
    };
    const chapter = manuscript.children.find((c) => c.name === "01-bell")?.children[0];
    expect(chapter).toMatchObject({ path: "manuscript/01-bell/index.md", words: 7 });
  });

  it("counts words as a writer does: Latin words, and each CJK character", () => {
    expect(countWords("Mira's bell-rope broke, twice.")).toBe(4);
    expect(countWords("林岚走进雾里。")).toBe(6);
    expect(countWords("")).toBe(0);
  });

  it("reads a file with its version; writes against that version; a write from an older version is 409 with both texts", async () => {
    const read = (await (
      await fx.api("GET", "/api/projects/novel/files/read?path=lorebook/mira.md")
    ).json()) as {
      path: string;
      text: string;
      version: string;
    };
    expect(read).toEqual({
      path: "lorebook/mira.md",
      text: "Mira is seventeen.\n",
      version: sha("Mira is seventeen.\n"),
    });
    // Manuscript text is never kept in a browser cache.
    const again = await fx.api("GET", "/api/projects/novel/files/read?path=lorebook/mira.md");
    expect(again.headers.get("cache-control")).toBe("no-store");

    const saved = await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "lorebook/mira.md",
      content: "Mira is eighteen.\n",
      baseVersion: read.version,
    });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({
      path: "lorebook/mira.md",
      version: sha("Mira is eighteen.\n"),
      created: false,
      unchanged: false,
    });

    // Someone else (an agent, another tab) changed it since; this tab still holds the first version.
    writeFileSync(join(root, "lorebook", "mira.md"), "Mira is nineteen.\n");
    const stale = await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "lorebook/mira.md",
      content: "Mira is twenty.\n",
      baseVersion: read.version,
    });
    expect(stale.status).toBe(409);
    const body = (await stale.json()) as ApiError;
    expect(body.error.code).toBe("conflict");
    expect(body.error.details).toEqual({
      path: "lorebook/mira.md",
      version: sha("Mira is nineteen.\n"),
      theirs: "Mira is nineteen.\n",
      yours: "Mira is twenty.\n",
    });
    expect(readFileSync(join(root, "lorebook", "mira.md"), "utf8")).toBe("Mira is nineteen.\n");
  });

  it("a new file is written with baseVersion null; null for a file that exists is a conflict", async () => {
    const created = await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "manuscript/02/index.md",
      content: "Low water.\n",
      baseVersion: null,
    });
    expect(created.status).toBe(200);
    expect(((await created.json()) as { created: boolean }).created).toBe(true);
    const again = await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "manuscript/02/index.md",
      content: "High water.\n",
      baseVersion: null,
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as ApiError).error.details?.theirs).toBe("Low water.\n");
  });

  it("a write that changes nothing says so and reports no change", async () => {
    const res = await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "lorebook/mira.md",
      content: "Mira is seventeen.\n",
      baseVersion: sha("Mira is seventeen.\n"),
    });
    expect(((await res.json()) as { unchanged: boolean }).unchanged).toBe(true);
  });

  it("a saved file is announced on the workspace stream", async () => {
    const stream = await fx.api("GET", "/api/events");
    await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "lorebook/mira.md",
      content: "Mira is eighteen.\n",
      baseVersion: sha("Mira is seventeen.\n"),
    });
    const events = await readEvents(stream.body as ReadableStream<Uint8Array>, (e) => e.length >= 1);
    expect(events[0]).toMatchObject({
      event: "files_changed",
      data: { project: "novel", sessionId: null, tool: "write", paths: ["lorebook/mira.md"] },
    });
  });
});

describe("path escapes are refused exactly as the file tools refuse them", () => {
  it("every escaping address gets the tool's code (403 path_escape / not_allowed, 400 invalid_input), and nothing outside is read or written", async () => {
    const outside = join(fx.bed.dir, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "SECRET-CONTENT\n");
    symlinkSync(outside, join(root, "lorebook", "out"));
    linkSync(join(outside, "secret.txt"), join(root, "lorebook", "innocent.md"));
    symlinkSync(join(outside, "missing.txt"), join(root, "lorebook", "dangling.md"));

    const cases = [
      "/etc/passwd",
      "../outside/secret.txt",
      "lorebook/../../outside/secret.txt",
      "lorebook/out/secret.txt",
      "lorebook/innocent.md",
      "lorebook/dangling.md",
      "workspace/ghost/a.md",
      "workspace/novel/../../outside/secret.txt",
      "~/secret.txt",
      "C:/secret.txt",
      "a\u0000b.md",
      ".nbook/project.sqlite",
      ".nbook/agent/profiles/writer.yaml",
      "skill://keep-canon/SKILL.md",
    ];
    const status: Record<string, number> = {
      path_escape: 403,
      not_allowed: 403,
      invalid_input: 400,
      not_found: 404,
    };
    for (const path of cases) {
      const tool = await fx.bed.call("write", { path, content: "pwned\n" });
      expect(tool.ok, path).toBe(false);
      const code = !tool.ok ? tool.error.code : "";
      const res = await fx.api("PUT", "/api/projects/novel/files/write", {
        path,
        content: "pwned\n",
        baseVersion: null,
      });
      const body = (await res.json()) as ApiError;
      expect(body.error.code, `write ${JSON.stringify(path)}`).toBe(code);
      expect(res.status, path).toBe(status[code]);
      expect(JSON.stringify(body)).not.toContain(fx.bed.dir);

      if (path.startsWith(".nbook") || path.startsWith("skill://")) continue;
      const toolRead = await fx.bed.call("read", { path });
      const apiRead = await fx.api("GET", `/api/projects/novel/files/read?path=${encodeURIComponent(path)}`);
      const readBody = (await apiRead.json()) as ApiError;
      expect(readBody.error.code, `read ${JSON.stringify(path)}`).toBe(
        !toolRead.ok ? toolRead.error.code : "ok",
      );
      expect(JSON.stringify(readBody)).not.toContain("SECRET-CONTENT");
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("SECRET-CONTENT\n");
    expect(existsSync(join(outside, "missing.txt"))).toBe(false);
    expect(existsSync(join(root, "~"))).toBe(false);
  });
});
