import { readdir, readFile, stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { NbError } from "../core/errors.js";
import { resolveFileAddress } from "../workspace/paths.js";
import type { Project } from "../workspace/project.js";

const ROOTS = ["lorebook", "manuscript"] as const;
const SCHEMA_PATH = "world/schema";

/** One listed resource. */
export interface ResourceInfo {
  uri: string;
  name: string;
  mimeType: string;
}

/** `nbook://<project>/<path>` */
export function resourceUri(project: string, path: string): string {
  return `nbook://${encodeURIComponent(project)}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

async function walk(root: string, rel: string, out: string[]): Promise<void> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const p = posix.join(rel, e.name);
    if (e.isDirectory()) await walk(root, p, out);
    else if (e.isFile() && e.name.toLowerCase().endsWith(".md")) out.push(p);
  }
}

/** The project's lorebook and manuscript Markdown files, and its world schema. */
export async function listResources(project: Project): Promise<ResourceInfo[]> {
  const paths: string[] = [];
  for (const r of ROOTS) await walk(project.root, r, paths);
  const out = paths.map((p) => ({ uri: resourceUri(project.name, p), name: p, mimeType: "text/markdown" }));
  out.push({
    uri: resourceUri(project.name, SCHEMA_PATH),
    name: "World Engine schema",
    mimeType: "application/yaml",
  });
  return out;
}

/** Read one resource; only lorebook/manuscript Markdown and the world schema, through the file authorisation path. */
export async function readResource(
  project: Project,
  uri: string,
): Promise<{ uri: string; mimeType: string; text: string }> {
  const m = /^nbook:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!m) throw new NbError("invalid_input", `Not a NeuroBook resource URI: ${uri}`);
  const name = decodeURIComponent(m[1]);
  const path = m[2].split("/").map(decodeURIComponent).join("/");
  if (name !== project.name)
    throw new NbError("not_found", `This server serves project ${project.name}, not ${name}`);
  if (path === SCHEMA_PATH) {
    const r = resolveFileAddress(project.workspace, project, "world-engine/schema.yaml");
    const text = await readFile(r.abs, "utf8").catch(
      () => "# No world-engine/schema.yaml: the schema is empty and permissive.\n",
    );
    return { uri, mimeType: "application/yaml", text };
  }
  const r = resolveFileAddress(project.workspace, project, path);
  if (!ROOTS.some((root) => r.rel.startsWith(`${root}/`)) || !r.rel.endsWith(".md")) {
    throw new NbError("not_found", `No such resource: ${uri}`);
  }
  const st = await stat(r.abs).catch(() => null);
  if (!st?.isFile()) throw new NbError("not_found", `No such resource: ${uri}`);
  return { uri, mimeType: "text/markdown", text: await readFile(r.abs, "utf8") };
}
