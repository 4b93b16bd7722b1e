import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NbError } from "../../src/core/errors.js";
import { loadResearchSettings } from "../../src/research/config.js";
import { Research } from "../../src/research/service.js";

let root: string;
let project: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "nbook-research-config-"));
  project = join(root, "novel");
  mkdirSync(join(root, ".nbook"), { recursive: true });
  mkdirSync(join(project, ".nbook"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function config(where: "workspace" | "project", research: unknown): void {
  const dir = where === "workspace" ? root : project;
  writeFileSync(join(dir, ".nbook", "config.json"), JSON.stringify({ providers: {}, research }));
}

const load = () => loadResearchSettings({ workspaceRoot: root, projectRoot: project });

function configError(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(NbError);
    expect((e as NbError).code).toBe("config_error");
    return e as NbError;
  }
  throw new Error("expected a config_error");
}

describe("research settings", () => {
  it("with nothing configured: no sources (the offline sample answers) and 24 h staleness", () => {
    expect(load()).toEqual({ sources: [], staleAfterHours: 24 });
    const r = Research.open({ workspaceRoot: root, projectRoot: project });
    expect(r.sources.map((s) => s.label)).toEqual(["the offline sample (examples/research, invented books)"]);
  });

  it("reads the workspace's service and folder, in that order, and drops a trailing slash", () => {
    config("workspace", {
      http: { baseUrl: "http://127.0.0.1:3100/novelscope/", timeoutMs: 5000 },
      dir: "research-data",
      staleAfterHours: 6,
    });
    const s = load();
    expect(s.staleAfterHours).toBe(6);
    expect(s.sources).toEqual([
      { kind: "http", baseUrl: "http://127.0.0.1:3100/novelscope", timeoutMs: 5000, fromProject: false },
      { kind: "file", dir: join(root, "research-data"), shownAs: "research-data", fromProject: false },
    ]);
    expect(Research.open({ workspaceRoot: root }).sources.map((x) => x.label)).toEqual([
      "the research service at http://127.0.0.1:3100/novelscope",
      "the snapshot files in research-data",
    ]);
  });

  it("refuses a URL with credentials, a query or another scheme, naming the field", () => {
    for (const [baseUrl, why] of [
      ["http://me:secret@127.0.0.1:3000", "must not carry user:password@"],
      ["http://127.0.0.1:3000/?token=x", "must not have a query"],
      ["file:///etc/passwd", "must be an http or https URL"],
    ]) {
      config("workspace", { http: { baseUrl } });
      const e = configError(load);
      expect(e.message).toContain(`/research/http/baseUrl: ${why}`);
      expect(e.message).not.toContain("secret");
    }
    config("workspace", { staleAfterHours: 0 });
    expect(configError(load).message).toContain("/research/staleAfterHours");
    config("workspace", { sources: [] });
    expect(configError(load).message).toContain("/research/sources: unknown field");
  });

  it("a project may not redirect the workspace's service", () => {
    config("workspace", { http: { baseUrl: "http://127.0.0.1:3100" } });
    config("project", { http: { baseUrl: "http://127.0.0.1:9999" } });
    const e = configError(load);
    expect(e.message).toBe(
      "Invalid project .nbook/config.json:\n/research/http/baseUrl: must stay http://127.0.0.1:3100; a project may not redirect the workspace's research service",
    );
    // Naming the same service (to set its own staleness) is fine.
    config("project", { http: { baseUrl: "http://127.0.0.1:3100/" }, staleAfterHours: 2 });
    expect(load()).toMatchObject({ staleAfterHours: 2, sources: [{ baseUrl: "http://127.0.0.1:3100" }] });
    expect(load().sources).toHaveLength(1);
  });

  it("a project's own service or folder is added after the workspace's, and says whose it is", () => {
    config("workspace", { dir: "shared" });
    config("project", { http: { baseUrl: "https://research.example.invalid" }, dir: "research" });
    const labels = Research.open({ workspaceRoot: root, projectRoot: project }).sources.map((s) => s.label);
    expect(labels).toEqual([
      "the snapshot files in shared",
      "the research service at https://research.example.invalid (added by the project's .nbook/config.json)",
      "the snapshot files in research in the project",
    ]);
  });

  it("a project's folder must be inside the project, also through a symbolic link", () => {
    for (const dir of ["../elsewhere", join(root, "elsewhere")]) {
      config("project", { dir });
      expect(configError(load).message).toContain("/research/dir: must be a folder inside the project");
    }
    mkdirSync(join(root, "elsewhere"));
    symlinkSync(join(root, "elsewhere"), join(project, "link"));
    config("project", { dir: "link" });
    expect(configError(load).message).toContain("/research/dir: must be a folder inside the project");
  });

  it("reports a config file that is not JSON", () => {
    writeFileSync(join(project, ".nbook", "config.json"), "{ nope");
    expect(configError(load).message).toMatch(/^project \.nbook\/config\.json is not valid JSON/);
  });
});
