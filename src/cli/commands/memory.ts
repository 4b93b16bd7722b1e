import { readdir } from "node:fs/promises";
import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import {
  parseEvents,
  parseMemories,
  SOURCES,
  type Source,
  type SubjectEvent,
  type SubjectMemory,
  subjectPathOf,
} from "../../memory/files.js";
import {
  formatHits,
  rebuildIndex,
  type SubjectFiles,
  searchSubject,
  sourceFile,
} from "../../memory/subjects.js";
import { loadModelsConfig } from "../../models/config.js";
import { embeddingProvider } from "../../models/embeddings/resolve.js";
import { subjectFiles } from "../../tools/memory/access.js";
import type { ToolContext } from "../../tools/types.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError, writeErr, writeOut } from "../output.js";

interface Opts {
  workspace?: string;
  project?: string;
  json?: boolean;
  source?: string;
  limit?: string;
}

/** The embedding model the workspace and project configure, or null (keyword search). */
function configuredEmbedding(o: Opts) {
  const { workspace, project } = locateProject(o, true);
  return embeddingProvider(
    loadModelsConfig({ workspaceRoot: workspace.root, projectRoot: project?.root ?? null }),
    process.env,
  );
}

/** The project's subject files as the trusted local user reaches them (the file authorisation path). */
function filesFor(o: Opts): { files: SubjectFiles; root: string } {
  const { workspace, project } = locateProject(o, true);
  if (!project) throw new NbError("invalid_input", "No project");
  const ctx: ToolContext = {
    workspace,
    project,
    mode: "normal",
    profileKey: null,
    binding: {},
    worldFiles: "readwrite",
  };
  return { files: subjectFiles(ctx, "any"), root: project.root };
}

async function subjectIds(o: Opts): Promise<string[]> {
  const { root } = filesFor(o);
  const entries = await readdir(`${root}/simulation/subjects`, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** `not_found` for a subject the project does not have, naming the ones it has. */
async function noSuchSubject(o: Opts, path: string): Promise<NbError> {
  const ids = await subjectIds(o);
  const known = ids.length
    ? `The project's subjects: ${ids.join(", ")} (nbook memory subjects lists them)`
    : "The project has no subjects yet (each is a folder simulation/subjects/<id>/)";
  return new NbError("not_found", `No subject at ${path}. ${known}`);
}

/** Events and memories of one subject, or the parse error of the first broken file. */
type Summary =
  | { id: string; path: string; events: SubjectEvent[]; memories: SubjectMemory[] }
  | { id: string; path: string; error: string };

async function summary(files: SubjectFiles, id: string): Promise<Summary> {
  const path = subjectPathOf(id);
  try {
    const ev = sourceFile(path, "events");
    const mem = sourceFile(path, "memory");
    const events = parseEvents(ev, (await files.read(ev)) ?? "", (w) => writeErr(`warning: ${w}\n`)).map(
      (l) => l.value,
    );
    const memories = parseMemories(mem, (await files.read(mem)) ?? "").map((l) => l.value);
    return { id, path, events, memories };
  } catch (e) {
    return { id, path, error: e instanceof NbError ? e.message : String(e) };
  }
}

function sourceOption(s: string | undefined): Source[] {
  if (s === undefined) return [...SOURCES];
  if (!(SOURCES as readonly string[]).includes(s))
    throw new NbError("invalid_input", "--source must be events or memory");
  return [s as Source];
}

const common = (c: Command) =>
  c
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project")
    .option("--json", "print JSON");

/** `nbook memory subjects|show|search|reindex`. */
export function registerMemory(program: Command): void {
  const memory = program
    .command("memory")
    .description("Subject memory: list subjects, show one, search its events or memories, rebuild the index");

  common(
    memory
      .command("subjects")
      .description("List the subjects of simulation/subjects/ with their event and memory counts"),
  ).action(async (o: Opts) => {
    try {
      const { files } = filesFor(o);
      const rows = await Promise.all((await subjectIds(o)).map((id) => summary(files, id)));
      const out = rows.map((r) =>
        "error" in r
          ? { id: r.id, path: r.path, error: r.error }
          : { id: r.id, path: r.path, events: r.events.length, memories: r.memories.length },
      );
      if (o.json) return printJson({ subjects: out });
      for (const r of out) {
        const what = "error" in r ? `BROKEN ${r.error}` : `${r.events} events, ${r.memories} memories`;
        writeOut(`${r.id.padEnd(20)}${what}\n`);
      }
      if (!out.length) writeOut("(no subjects)\n");
    } catch (e) {
      reportCliError(e, o.json);
    }
  });

  common(
    memory.command("show").description("Show a subject's events and memories").argument("<id>", "subject id"),
  ).action(async (id: string, o: Opts) => {
    try {
      const { files } = filesFor(o);
      const s = await summary(files, id);
      if (!(await files.isDir(s.path))) throw await noSuchSubject(o, s.path);
      if ("error" in s) throw new NbError("invalid_input", s.error);
      if (o.json) return printJson(s);
      const lines = [`# ${s.path}`, "", `## Events (${s.events.length})`];
      for (const e of s.events)
        lines.push(
          `- ${[e.tick, e.time]
            .filter(Boolean)
            .map((t) => `[${t}] `)
            .join("")}${e.text}`,
        );
      lines.push("", `## Memory (${s.memories.length})`);
      for (const m of s.memories)
        lines.push(`- ${m.topic}${m.aliases?.length ? ` (also: ${m.aliases.join(", ")})` : ""}: ${m.view}`);
      writeOut(`${lines.join("\n")}\n`);
    } catch (e) {
      reportCliError(e, o.json);
    }
  });

  common(
    memory
      .command("search")
      .description(
        "Search one subject's events and/or memories as subject_rag_search does (keyword, or hybrid with an embedding model)",
      )
      .argument("<id>", "subject id")
      .argument("<query>", "what to look for")
      .option("--source <source>", "events or memory (default: both)")
      .option("--limit <n>", "hits per source (default 6 events, 4 memory)"),
  ).action(async (id: string, query: string, o: Opts) => {
    try {
      const { files } = filesFor(o);
      const limit = o.limit === undefined ? undefined : Number(o.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 20))
        throw new NbError("invalid_input", "--limit must be 1–20");
      const path = subjectPathOf(id);
      if (!(await files.isDir(path))) throw await noSuchSubject(o, path);
      const r = await searchSubject(files, path, sourceOption(o.source), query, {
        ...(limit === undefined ? {} : { limit }),
        embedding: configuredEmbedding(o),
      });
      const results = r.results.map(({ source, hits }) => ({ source, hits, text: formatHits(source, hits) }));
      for (const w of r.results.flatMap((s) => s.warnings)) writeErr(`warning: ${w}\n`);
      if (o.json)
        return printJson({
          retrieval: r.retrieval,
          results: results.map(({ source, hits }) => ({ source, hits })),
        });
      writeOut(`${results.map((r) => r.text).join("\n\n")}\n`);
    } catch (e) {
      reportCliError(e, o.json);
    }
  });

  common(
    memory
      .command("reindex")
      .description(
        "Rebuild the subject memory index (.nbook/subject-memory.sqlite) from the JSONL files, reusing stored vectors of unchanged text",
      ),
  ).action(async (o: Opts) => {
    try {
      const { files } = filesFor(o);
      const { subjects: rows } = await rebuildIndex(files, await subjectIds(o), configuredEmbedding(o));
      if (o.json) return printJson({ subjects: rows });
      for (const r of rows) {
        const what = r.error
          ? `BROKEN ${r.error}`
          : `${r.events} event chunks, ${r.memory} memory chunks, ${r.embedded} embedded`;
        writeOut(`${String(r.id).padEnd(20)}${what}\n`);
      }
      if (!rows.length) writeOut("(no subjects)\n");
    } catch (e) {
      reportCliError(e, o.json);
    }
  });
}
