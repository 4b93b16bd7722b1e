import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import type { Allowlist } from "../../tools/dispatch.js";
import type { Project } from "../../workspace/project.js";
import type { HistoryEntry, Issue, SliceInfo } from "../../world/api.js";
import { type Calendar, openCalendar } from "../../world/calendar/index.js";
import { openWorld, type World } from "../../world/world.js";
import { openCliContext } from "../context.js";
import { parseMode } from "../input.js";
import { printJson, reportCliError, writeOut } from "../output.js";
import { runCliToolCall } from "../tool-call.js";

interface WorldOptions {
  workspace?: string;
  project?: string;
  json?: boolean;
}

interface Env {
  project: Project;
  world: World;
  calendar: Calendar;
  /** Instant → calendar string. */
  time: (t: number) => string;
}

const out = (line = "") => writeOut(`${line}\n`);

/** Open the project's world, run one subcommand, report errors the CLI way and close the workspace. */
async function withWorld(o: WorldOptions, fn: (env: Env) => void | Promise<void>): Promise<void> {
  let close = () => {};
  try {
    const ctx = openCliContext(o, true);
    close = () => ctx.workspace.close();
    const project = ctx.project as Project;
    const calendar = await openCalendar(project);
    await fn({ project, world: openWorld(project), calendar, time: (t) => calendar.format(t) });
  } catch (e) {
    reportCliError(e, o.json);
  } finally {
    close();
  }
}

function common(cmd: Command): Command {
  return cmd
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (default: the project folder you are in)")
    .option("--json", "print exactly one JSON object");
}

function issueText(i: Issue, time: (t: number) => string): string {
  const when = i.instant === undefined ? "" : ` at ${time(i.instant)}`;
  return `${i.label} ${i.severity}  ${i.subjectId}${i.attr}${when}${i.sliceId ? ` (slice ${i.sliceId})` : ""}: ${i.title} — ${i.message}`;
}

const withTime = <T extends { instant?: number }>(x: T, time: (t: number) => string) =>
  x.instant === undefined ? x : { ...x, time: time(x.instant) };

/** `nbook world …`: look at and script the World Engine; times in and out are calendar strings. */
export function registerWorld(program: Command): void {
  const world = program
    .command("world")
    .description("The World Engine: schema, subjects, state, history, slices, issues, scripts");

  common(world.command("schema").description("Subject types, their attributes, and the calendar")).action(
    (o: WorldOptions) =>
      withWorld(o, ({ world: w, calendar }) => {
        const schema = w.schema.describe();
        const cal = calendar.describe();
        if (o.json) return printJson({ schema, calendar: cal });
        out(`calendar: ${cal.kind}, format "${cal.format}", zero = ${cal.zero}`);
        if (schema.source === "none") out("schema: none (any type, free attributes)");
        for (const t of schema.types) {
          out(`${t.type}${t.description ? ` — ${t.description}` : ""}`);
          for (const a of t.attrs) {
            const type = a.to ? `${a.type}(${a.to})` : a.of ? `${a.type}<${a.of.to ?? a.of.type}>` : a.type;
            const dflt = a.default === undefined ? "" : ` = ${JSON.stringify(a.default)}`;
            out(`  ${a.name}: ${type}${dflt}${a.description ? `  — ${a.description}` : ""}`);
          }
        }
      }),
  );

  common(world.command("subjects").description("List subjects (id, type, name)"))
    .option("--type <type>", "only subjects of this type")
    .action((o: WorldOptions & { type?: string }) =>
      withWorld(o, ({ world: w }) => {
        const list = w.subject.list(o.type);
        if (o.json) return printJson(list);
        for (const s of list) out(`${s.id.padEnd(24)} ${s.type.padEnd(12)} ${s.name}`);
        if (!list.length) out("(no subjects)");
      }),
    );

  common(world.command("state").description("A subject's attributes, now or at a calendar time"))
    .argument("<id>", "subject id")
    .option("--at <time>", "calendar time in the project's format (see nbook world schema); default: latest")
    .action((id: string, o: WorldOptions & { at?: string }) =>
      withWorld(o, ({ world: w, calendar, time }) => {
        const at = o.at === undefined ? undefined : calendar.parse(o.at);
        const info = w.subject.info(id);
        const state = w.subject.get(id, at === undefined ? {} : { at });
        if (!info || !state) throw new NbError("not_found", `unknown subject ${id}`);
        const when = at === undefined ? "latest" : time(at);
        if (o.json) return printJson({ ...info, at: when, state });
        out(`${info.id} (${info.type}${info.name ? `, ${info.name}` : ""}) at ${when}`);
        out(JSON.stringify(state, null, 2));
      }),
    );

  common(world.command("history").description("When each change of a subject happened"))
    .argument("<id>", "subject id")
    .option("--path <pointer>", "only changes touching this JSON Pointer, e.g. /hp")
    .action((id: string, o: WorldOptions & { path?: string }) =>
      withWorld(o, ({ world: w, time }) => {
        const rows: HistoryEntry[] = w.subject.history(id, o.path === undefined ? {} : { path: o.path });
        if (o.json) return printJson(rows.map((r) => withTime(r, time)));
        for (const r of rows) {
          const value = r.value === undefined ? "" : ` ${JSON.stringify(r.value)}`;
          out(
            `${time(r.instant)}  ${r.sliceId}  ${r.op} ${r.path || "/"}${value}${r.summary ? `  # ${r.summary}` : ""}`,
          );
        }
        if (!rows.length) out("(no changes)");
      }),
    );

  common(world.command("slices").description("Slices in time order"))
    .option("--from <time>", "calendar time (inclusive)")
    .option("--to <time>", "calendar time (inclusive)")
    .option("--subject <id...>", "only slices touching these subjects")
    .option("--limit <n>", "at most n slices (without --from: the latest n)")
    .option("--patches", "include each slice's patches")
    .action(
      (
        o: WorldOptions & {
          from?: string;
          to?: string;
          subject?: string[];
          limit?: string;
          patches?: boolean;
        },
      ) =>
        withWorld(o, ({ world: w, calendar, time }) => {
          const limit = o.limit === undefined ? undefined : Number(o.limit);
          if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
            throw new NbError("invalid_input", "--limit must be a positive integer");
          const slices: SliceInfo[] = w.slice.list({
            from: o.from === undefined ? undefined : calendar.parse(o.from),
            to: o.to === undefined ? undefined : calendar.parse(o.to),
            subjectIds: o.subject,
            limit,
            withPatches: o.patches === true,
          });
          if (o.json) return printJson(slices.map((s) => withTime(s, time)));
          for (const s of slices) {
            const n = s.patchCount;
            out(
              `${time(s.instant)}  ${s.id}  ${s.title || "(untitled)"}  (${n} patch${n === 1 ? "" : "es"})`,
            );
            for (const p of s.patches ?? []) {
              const value = p.value === undefined ? "" : ` ${JSON.stringify(p.value)}`;
              out(`    ${p.subjectId} ${p.op} ${p.path || "/"}${value}`);
            }
          }
          if (!slices.length) out("(no slices)");
        }),
    );

  common(world.command("issues").description("Current data issues (E), all or by subject / slice"))
    .option("--subject <id>", "only this subject's issues")
    .option("--slice <id>", "only issues attributed to this slice")
    .action((o: WorldOptions & { subject?: string; slice?: string }) =>
      withWorld(o, ({ world: w, time }) => {
        const issues = w.issues.list({ subjectId: o.subject, sliceId: o.slice });
        if (o.json) return printJson(issues.map((i) => withTime(i, time)));
        for (const i of issues) out(issueText(i, time));
        if (!issues.length) out("(no issues)");
      }),
    );

  common(
    world.command("exec").description("Run a script file with execute_world (read-write unless --readonly)"),
  )
    .argument("<script>", "a .js file: the body of a function, with `world` in scope")
    .option("--readonly", "run with read-only access (no write functions), like the writer")
    .option(
      "--mode <mode>",
      "normal, discuss or plan (discuss/plan stop writes with a dry-run preview)",
      "normal",
    )
    .option("--approve", "approve the writes the mode would stop")
    .action(
      async (script: string, o: WorldOptions & { readonly?: boolean; mode: string; approve?: boolean }) => {
        let close = () => {};
        try {
          const mode = parseMode(o.mode);
          let code: string;
          try {
            code = readFileSync(script, "utf8");
          } catch {
            throw new NbError("not_found", `cannot read script ${script}`);
          }
          const ctx = openCliContext(o, true);
          close = () => ctx.workspace.close();
          const allow: Allowlist = o.readonly ? new Map([["execute_world", { access: "readonly" }]]) : "all";
          await runCliToolCall(
            ctx,
            { key: "execute_world", input: { code } },
            { mode, approved: o.approve === true, allow, json: o.json },
          );
        } catch (e) {
          reportCliError(e, o.json);
        } finally {
          close();
        }
      },
    );
}
