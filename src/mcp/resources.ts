import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, posix } from "node:path";
import { NbError } from "../core/errors.js";
import { resolveFileAddress } from "../workspace/paths.js";
import type { Project } from "../workspace/project.js";
import { readTextSafe } from "../workspace/safe-read.js";
import { SCHEMA_FILE } from "../workspace/schema-seed.js";

const ROOTS = ["lorebook", "manuscript"] as const;
const SCHEMA_PATH = "world/schema";

/** One listed resource. */
export interface ResourceInfo {
  uri: string;
  name: string;
  mimeType: string;
}

/** One resource template (RFC 6570). */
export interface ResourceTemplateInfo {
  uriTemplate: string;
  name: string;
  description: string;
  mimeType: string;
}

/** A template per readable folder: `{+path}` is the Markdown file's path inside it. */
export function resourceTemplates(project: Project): ResourceTemplateInfo[] {
  return ROOTS.map((root) => ({
    uriTemplate: `nbook://${encodeURIComponent(project.name)}/${root}/{+path}`,
    name: `${root} file`,
    description: `A Markdown file under ${root}/ (path relative to it, ending in .md)`,
    mimeType: "text/markdown",
  }));
}

/** `nbook://<project>/<path>` */
export function resourceUri(project: string, path: string): string {
  return `nbook://${encodeURIComponent(project)}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

async function walk(root: string, rel: string, out: string[]): Promise<void> {
  let entries: Dirent[];
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

/** Split `nbook://<project>/<path>` into its decoded parts; `invalid_input` when it is not one. */
function parseUri(uri: string): { name: string; path: string } {
  const m = /^nbook:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!m) throw new NbError("invalid_input", `Not a NeuroBook resource URI: ${uri}`);
  try {
    return { name: decodeURIComponent(m[1]), path: m[2].split("/").map(decodeURIComponent).join("/") };
  } catch {
    throw new NbError("invalid_input", `Badly percent-encoded resource URI: ${uri}`);
  }
}

/** The most of one resource read: a chapter fits many times. */
const MAX_RESOURCE_BYTES = 8 * 1024 * 1024;

/** A project file's text through the safe read (no FIFO, device or link out; null: missing). */
function readProjectText(project: Project, abs: string, label: string): Promise<string | null> {
  return readTextSafe(abs, { label, root: project.realRoot, maxBytes: MAX_RESOURCE_BYTES });
}

async function readSchema(project: Project): Promise<string> {
  const r = resolveFileAddress(project.workspace, project, SCHEMA_FILE);
  const text = await readProjectText(project, r.abs, SCHEMA_FILE);
  return text ?? `# No ${SCHEMA_FILE}: the schema is empty and permissive.\n`;
}

/**
 * Read one resource: only this project's lorebook/manuscript Markdown and its world schema, through
 * the file authorisation path (no `..`, no symlink out, no `workspace/<other>/…`).
 */
export async function readResource(
  project: Project,
  uri: string,
): Promise<{ uri: string; mimeType: string; text: string }> {
  const { name, path } = parseUri(uri);
  if (name !== project.name)
    throw new NbError("not_found", `This server serves project ${project.name}, not ${name}`);
  if (path === SCHEMA_PATH) return { uri, mimeType: "application/yaml", text: await readSchema(project) };
  const r = resolveFileAddress(project.workspace, project, path);
  const listed = r.project.name === project.name && ROOTS.some((root) => r.rel.startsWith(`${root}/`));
  if (!listed || !r.rel.toLowerCase().endsWith(".md"))
    throw new NbError("not_found", `No such resource: ${uri}`);
  const text = await readProjectText(project, r.abs, r.rel).catch((e) => {
    // A folder of that name is no resource either; a FIFO, a device or a link out says so.
    if (e instanceof NbError && e.code === "invalid_input") return null;
    throw e;
  });
  if (text === null) throw new NbError("not_found", `No such resource: ${uri}`);
  return { uri, mimeType: "text/markdown", text };
}
