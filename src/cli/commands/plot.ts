import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { recordedPlotWrite } from "../../history/user-rows.js";
import { DELETABLE, type DeletableKind, describeDelete, hardDelete } from "../../plot/delete.js";
import type { GroupDto } from "../../plot/groups.js";
import {
  getChapterDetail,
  getChapterWriterBrief,
  getStoryTree,
  listDecisions,
  listPhases,
  listPromises,
  openPlotContext,
  type PlotContext,
  savePhase,
} from "../../plot/index.js";
import { DECISION_STATUS, LIMITS, type Placement, PROMISE_STATUS } from "../../plot/schemas.js";
import type { StoryTree } from "../../plot/tree.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError, writeOut } from "../output.js";

interface PlotOptions {
  workspace?: string;
  project?: string;
  json?: boolean;
}

function open(o: PlotOptions): Promise<PlotContext> {
  const { project } = locateProject(o, true);
  return openPlotContext(project!, "user");
}

/** Run a write of the user's plot rows as one change of the project's history (see docs/history.md). */
async function recorded<T>(
  o: PlotOptions,
  tool: string,
  write: (pc: PlotContext) => T,
  summary: (value: T) => string,
): Promise<T> {
  const { project } = locateProject(o, true);
  const pc = await openPlotContext(project!, "user");
  return recordedPlotWrite(project!, pc.db, tool, () => write(pc), summary);
}

function positiveId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw))
    throw new NbError("invalid_input", `${what} must be a positive integer, not "${raw}"`);
  return Number(raw);
}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new NbError("invalid_input", `${flag} must be one of ${allowed.join(", ")}`);
  }
  return value as T;
}

function out(o: PlotOptions, value: unknown, text: string): void {
  if (o.json) printJson(value);
  else writeOut(`${text}\n`);
}

/** Run a subcommand body, reporting errors the way every command does. */
function run(o: PlotOptions, body: () => Promise<void> | void): Promise<void> {
  return Promise.resolve()
    .then(body)
    .catch((e) => reportCliError(e, o.json));
}

function withCommon(cmd: Command): Command {
  return cmd
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (default: the project folder you are in)")
    .option("--json", "print JSON");
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new NbError(
      "invalid_input",
      "Refusing to delete without confirmation: pass --yes (stdin is not a terminal)",
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** Indented `key: value` lines for the texts that are set. */
function textLines(indent: string, texts: Record<string, string | null | undefined>): string[] {
  return Object.entries(texts)
    .filter(([, v]) => v)
    .map(([k, v]) => `${indent}${k}: ${v}`);
}

/** The story tree as indented text; with --detail also summaries, chapter briefs and each thread's scenes. */
function treeText(tree: StoryTree): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const lines = [tree.story.title];
  if ("summary" in tree.story) lines.push(...textLines("  ", { summary: tree.story.summary }));
  const chapterLines = (c: StoryTree["ungroupedChapters"][number]) => [
    `    #${c.id} ${c.title} (${plural(c.scenes, "scene")}${c.status === "archived" ? ", archived" : ""})`,
    ...("brief" in c ? textLines("      ", { ...c.brief, note: c.note }) : []),
  ];
  const threadLines = (t: StoryTree["ungroupedThreads"][number]) => [
    `    #${t.id} ${t.title}${t.isMain ? " [main]" : ""} (${t.status}, ${plural(t.scenes, "scene")})`,
    ...(t.sceneList
      ? [
          ...textLines("      ", { summary: t.summary }),
          ...t.sceneList.map((s) => `      - #${s.id} ${s.title} [${s.status}]`),
        ]
      : []),
  ];
  for (const a of tree.acts) {
    lines.push(`  Act #${a.id} ${a.title}${a.status === "archived" ? " (archived)" : ""}`);
    if ("summary" in a) lines.push(...textLines("    ", { summary: a.summary }));
    lines.push(...a.chapters.flatMap(chapterLines));
  }
  if (tree.ungroupedChapters.length)
    lines.push("  Chapters without an act", ...tree.ungroupedChapters.flatMap(chapterLines));
  for (const p of tree.phases) {
    lines.push(`  Phase #${p.id} ${p.title}${p.status === "archived" ? " (archived)" : ""}`);
    if ("summary" in p) lines.push(...textLines("    ", { summary: p.summary }));
    lines.push(...p.threads.flatMap(threadLines));
  }
  if (tree.ungroupedThreads.length)
    lines.push("  Threads without a phase", ...tree.ungroupedThreads.flatMap(threadLines));
  const t = tree.totals;
  lines.push(
    `${plural(t.acts, "act")}, ${plural(t.chapters, "chapter")}, ${plural(t.phases, "phase")}, ${plural(t.threads, "thread")}, ${plural(t.scenes, "scene")}; ${plural(t.openPromises, "open promise")}, ${plural(t.openDecisions, "open decision")}`,
  );
  return lines.join("\n");
}

interface PhaseOptions extends PlotOptions {
  title?: string;
  summary?: string;
  before?: string;
  after?: string;
  unarchive?: boolean;
}

/** The placement of --before/--after, if one was given. */
function placement(o: PhaseOptions): Placement | undefined {
  if (o.before === undefined && o.after === undefined) return undefined;
  if (o.before !== undefined && o.after !== undefined)
    throw new NbError("invalid_input", "Give --before or --after, not both");
  return {
    before: o.before === undefined ? undefined : positiveId(o.before, "--before"),
    after: o.after === undefined ? undefined : positiveId(o.after, "--after"),
  };
}

/** One phase as a line: `#3 The flight (flight) [archived]`. */
function phaseLine(p: GroupDto): string {
  return `#${p.id} ${p.title} (${p.name})${p.status === "archived" ? " [archived]" : ""}`;
}

/** `nbook plot phases` and `nbook plot phase add|set|archive`: the user's door to the phases of the causal tree. */
function registerPhases(plot: Command): void {
  withCommon(
    plot.command("phases").description("The phases of the causal tree, in order, with thread counts"),
  )
    .option("--all", "include archived phases")
    .action((o: PlotOptions & { all?: boolean }) =>
      run(o, async () => {
        const phases = listPhases(await open(o), { includeArchived: o.all });
        const lines = phases.map((p) => `${phaseLine(p)} — ${p.threads} thread${p.threads === 1 ? "" : "s"}`);
        out(o, phases, lines.length ? lines.join("\n") : "No phases.");
      }),
    );

  const phase = plot.command("phase").description("Create, change, move or archive a phase");
  const placed = (cmd: Command) =>
    withCommon(cmd)
      .option("--before <id>", "put it right before this phase")
      .option("--after <id>", "put it right after this phase");

  placed(
    phase
      .command("add")
      .description("Create a phase (at the end unless --before/--after)")
      .argument("<name>", "unique slug, e.g. the-flight"),
  )
    .option("--title <title>", "display title (default: the name)")
    .option("--summary <text>", "what the phase covers")
    .action((name: string, o: PhaseOptions) =>
      run(o, async () => {
        const p = await recorded(
          o,
          "nbook plot phase add",
          (pc) =>
            savePhase(pc, {
              action: "create",
              name,
              title: o.title ?? name,
              summary: o.summary,
              order: placement(o),
            }),
          (g) => `Created phase ${phaseLine(g)}`,
        );
        out(o, p, `Created phase ${phaseLine(p)} at position ${p.sortOrder}.`);
      }),
    );

  placed(phase.command("set").description("Change a phase's title or summary, move it, or un-archive it"))
    .argument("<id>", "phase id")
    .option("--title <title>", "new display title")
    .option("--summary <text>", "new summary")
    .option("--unarchive", "make an archived phase active again")
    .action((id: string, o: PhaseOptions) =>
      run(o, async () => {
        const phaseId = positiveId(id, "phase id");
        const change = {
          title: o.title,
          summary: o.summary,
          status: o.unarchive ? ("active" as const) : undefined,
          order: placement(o),
        };
        if (Object.values(change).every((v) => v === undefined)) {
          throw new NbError(
            "invalid_input",
            "Nothing to change: give --title, --summary, --before, --after or --unarchive",
          );
        }
        const p = await recorded(
          o,
          "nbook plot phase set",
          (pc) => savePhase(pc, { action: "update", phaseId, ...change }),
          (g) => `Updated phase ${phaseLine(g)}`,
        );
        out(o, p, `Updated phase ${phaseLine(p)} at position ${p.sortOrder}.`);
      }),
    );

  withCommon(
    phase
      .command("archive")
      .description("Archive a phase: it and its threads leave the tree, nothing is deleted"),
  )
    .argument("<id>", "phase id")
    .action((id: string, o: PlotOptions) =>
      run(o, async () => {
        const p = await recorded(
          o,
          "nbook plot phase archive",
          (pc) => savePhase(pc, { action: "archive", phaseId: positiveId(id, "phase id") }),
          (g) => `Archived phase ${phaseLine(g)}`,
        );
        out(
          o,
          p,
          `Archived phase ${phaseLine(p)}; its threads are left out of the tree with it (\`nbook plot tree --all\` shows them, \`nbook plot phase set ${p.id} --unarchive\` brings it back).`,
        );
      }),
    );
}

/** `nbook plot tree|chapter|brief|promises|decisions|phases|phase|delete`: the story structure from the terminal. */
export function registerPlot(program: Command): void {
  const plot = program
    .command("plot")
    .description(
      "Read the story structure, the writer brief, promises and decisions; manage phases; delete plot rows",
    );

  withCommon(plot.command("tree").description("Acts → chapters and phases → threads, with scene counts"))
    .option("--detail", "add summaries, briefs and scenes")
    .option("--all", "include archived rows")
    .action((o: PlotOptions & { detail?: boolean; all?: boolean }) =>
      run(o, async () => {
        const tree = getStoryTree(await open(o), { detail: o.detail, includeArchived: o.all });
        out(o, tree, treeText(tree));
      }),
    );

  withCommon(
    plot
      .command("chapter")
      .description("One chapter: brief fields and scenes")
      .argument("<id>", "chapter id"),
  ).action((id: string, o: PlotOptions) =>
    run(o, async () => {
      const d = getChapterDetail(await open(o), positiveId(id, "chapter id"));
      const lines = [`#${d.chapter.id} ${d.chapter.title} (${d.chapter.name}, ${d.chapter.status})`];
      for (const [k, v] of Object.entries(d.chapter.brief)) if (v) lines.push(`  ${k}: ${v}`);
      lines.push(
        `Scenes (${d.scenes.length}${d.archivedScenes ? `, ${d.archivedScenes} archived not shown` : ""}):`,
      );
      for (const s of d.scenes)
        lines.push(`  #${s.id} ${s.title} [${s.status}]${s.anchored ? "" : " (no time range)"}`);
      out(o, d, lines.join("\n"));
    }),
  );

  withCommon(
    plot
      .command("brief")
      .description("The writer brief of a chapter, as Markdown")
      .argument("<chapterId>", "chapter id"),
  ).action((id: string, o: PlotOptions) =>
    run(o, async () => {
      const b = getChapterWriterBrief(await open(o), positiveId(id, "chapter id"));
      out(o, b, b.markdown);
    }),
  );

  withCommon(plot.command("promises").description("Reader promises, open first"))
    .option("--status <status>", `one of ${PROMISE_STATUS.join(", ")}`)
    .action((o: PlotOptions & { status?: string }) =>
      run(o, async () => {
        const page = listPromises(await open(o), {
          status: oneOf(o.status, PROMISE_STATUS, "--status"),
          limit: LIMITS.listPage,
        });
        const lines = page.rows.map(
          (p) => `#${p.id} ${p.title} (${p.name}) [${p.status}, ${p.importance}, ${p.stage}]`,
        );
        if (page.nextCursor) lines.push(`… ${page.total - page.rows.length} more`);
        out(o, page, lines.length ? lines.join("\n") : "No promises.");
      }),
    );

  withCommon(plot.command("decisions").description("Decision records, open first"))
    .option("--status <status>", `one of ${DECISION_STATUS.join(", ")}`)
    .action((o: PlotOptions & { status?: string }) =>
      run(o, async () => {
        const page = listDecisions(await open(o), {
          status: oneOf(o.status, DECISION_STATUS, "--status"),
          limit: LIMITS.listPage,
        });
        const lines = page.rows.map((d) => `#${d.id} ${d.title} (${d.name}) [${d.status}] ${d.question}`);
        if (page.nextCursor) lines.push(`… ${page.total - page.rows.length} more`);
        out(o, page, lines.length ? lines.join("\n") : "No decisions.");
      }),
    );

  registerPhases(plot);

  withCommon(
    plot
      .command("delete")
      .description("Hard-delete a plot row and what cascades from it (agents can only archive)")
      .argument("<kind>", DELETABLE.join(" | "))
      .argument("<id>", "row id"),
  )
    .option("--yes", "do not ask for confirmation (required with --json)")
    .action((kind: string, id: string, o: PlotOptions & { yes?: boolean }) =>
      run(o, async () => {
        const k = oneOf(kind, DELETABLE, "<kind>") as DeletableKind;
        const pc = await open(o);
        const n = positiveId(id, "id");
        const plan = describeDelete(pc, k, n);
        const summary = [
          `Delete ${plan.target}?`,
          ...(plan.effects.length ? plan.effects.map((e) => `  - ${e}`) : ["  (nothing else changes)"]),
        ];
        if (!o.yes && o.json) {
          throw new NbError("invalid_input", `Pass --yes to delete with --json.\n${summary.join("\n")}`, {
            details: plan,
          });
        }
        if (!o.yes) {
          writeOut(`${summary.join("\n")}\n`);
          if (!(await confirm("Type y to delete: "))) {
            writeOut("Not deleted.\n");
            return;
          }
        }
        const { project } = locateProject(o, true);
        const done = await recordedPlotWrite(
          project!,
          pc.db,
          "nbook plot delete",
          () => hardDelete(pc, k, n),
          (d) => `Deleted ${d.target}${d.effects.length ? ` (${d.effects.join("; ")})` : ""}`,
        );
        out(
          o,
          { deleted: done.target, effects: done.effects },
          `Deleted ${done.target}${done.effects.length ? `:\n${done.effects.map((e) => `  - ${e}`).join("\n")}` : "."}`,
        );
      }),
    );
}
