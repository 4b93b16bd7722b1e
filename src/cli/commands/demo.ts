import { existsSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import type { Harness } from "../../harness/loop.js";
import { openHarness } from "../../runtime/open.js";
import { createSampleProject } from "../../sample/seed.js";
import { Workspace } from "../../workspace/workspace.js";
import { INSTALL_ROOT, nbookCommand, typedPath } from "../as-typed.js";
import { attachDelegationPrinter } from "../demo-printer.js";
import { EXIT, reportCliError, writeOut } from "../output.js";

const SCRIPT = join(INSTALL_ROOT, "examples", "demo-script.yaml");
const BRAINSTORM_SCRIPT = join(INSTALL_ROOT, "examples", "brainstorm-script.yaml");
const MODELS_DOC = join(INSTALL_ROOT, "docs", "models.md");
const PROJECT = "tide-bell";
const CHAPTER = "manuscript/03-the-bell-road/index.md";
const PLAN = ".agent/plan/chapter-03.md";
const TASK =
  "Plan chapter 3 of The Tide-Bell Keeper from the canon, then have a writer draft it: Mira acts alone on the clear-sky bell.";

/** The first of `<base>`, `<base>-2`, … that does not exist yet. */
function freeName(base: string): string {
  for (let n = 1; ; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    if (!existsSync(dir)) return dir;
  }
}

/**
 * Where the demo goes without --dir: `~/nbook-demo` (or the next free name). The demo is a novel
 * workspace to come back to, so it belongs with the user's own files: not in the folder the shell
 * is in (the README runs it in the NeuroBook clone, where it would show in `git status` and go
 * with the clone), nor in a temporary folder that is cleared.
 */
function defaultDir(): string {
  return freeName(join(homedir(), "nbook-demo"));
}

/**
 * The demo makes a workspace of its own: `dir` must be new or empty. A folder that already holds
 * the demo is left as it is, saying how to open it or run the demo again elsewhere.
 */
function checkFreshDir(dir: string, cmd: string): void {
  if (!existsSync(dir)) return;
  const typed = typedPath(dir);
  const elsewhere = `${cmd} demo --dir ${typedPath(freeName(dir))}`;
  if (!statSync(dir).isDirectory()) {
    throw new NbError("conflict", `${typed} is a file. Give --dir a new folder: ${elsewhere}`);
  }
  if (readdirSync(dir).length === 0) return;
  if (existsSync(join(dir, ".nbook")) && existsSync(join(dir, PROJECT))) {
    throw new NbError(
      "conflict",
      [
        `${typed} already holds the demo (made by an earlier nbook demo); it is left as it is.`,
        `  Look at it:        ${cmd} sessions list --tree --workspace ${typed}`,
        `  Chat in it:        ${cmd} chat --workspace ${typed} --project ${PROJECT}  (needs a model: ${typedPath(MODELS_DOC)})`,
        `  Run the demo anew: ${elsewhere}  (or without --dir: ~/nbook-demo, or the next free name)`,
      ].join("\n"),
    );
  }
  throw new NbError(
    "conflict",
    `${typed} is not empty: the demo creates a workspace of its own, so give --dir a new or empty folder (${elsewhere}), or leave --dir out (~/nbook-demo, or the next free name).`,
  );
}

/** `nbook demo`: a leader session delegating a chapter to a writer, offline, on the sample novel. */
export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description(
      "Create a workspace with the sample novel and watch the leader agent plan a chapter and delegate its drafting to a writer agent (offline)",
    )
    .option(
      "--dir <dir>",
      "where to create the demo workspace: a new or empty folder (default: ~/nbook-demo, or the next free name)",
    )
    .action(async (o: { dir?: string }) => {
      let harness: Harness | null = null;
      const out = (s: string) => writeOut(s);
      try {
        const cmd = nbookCommand();
        const dir = o.dir ? resolve(o.dir) : defaultDir();
        checkFreshDir(dir, cmd);
        const workspace = Workspace.init(dir);
        const project = await createSampleProject(workspace, PROJECT);
        harness = openHarness({ workspace, project, script: SCRIPT });
        const h = harness;
        out(
          `NeuroBook demo\n  workspace: ${dir}\n  project:   ${PROJECT} ("${project.meta().title}", the sample novel)\n`,
        );
        out(
          "  agents:    leader.default in plan mode, delegating to a writer; a scripted model (offline, deterministic)\n\n",
        );
        const session = h.createSession({
          profileKey: "leader.default",
          project: PROJECT,
          mode: "plan",
          title: "Demo: plan chapter 3 and have a writer draft it",
        });
        attachDelegationPrinter(h, out);
        out(`you › ${TASK}\n\n`);
        let r = await h.invoke(session.id, { mode: "prompt", message: TASK });
        while (r.status === "waiting" && r.pending) {
          out(
            `\n[demo] The user approves ${r.pending.tool} [${r.pending.approvalId}] — in a real session you answer y/n here.\n`,
          );
          r = await h.settle(session.id, r.pending.approvalId, { approved: true });
        }
        if (r.status !== "completed") {
          out(`\nThe demo run ended with status ${r.status}${r.error ? `: ${r.error.message}` : ""}.\n`);
          process.exitCode = EXIT.toolError;
          return;
        }
        const flag = `--workspace ${typedPath(dir)}`;
        const writers = h.store.childLinks(session.id).map((l) => h.store.session(l.childSessionId));
        out(
          [
            "",
            "── Done ─────────────────────────────────────────────",
            `Chapter:  ${join(dir, PROJECT, CHAPTER)}`,
            `Plan:     ${join(dir, PROJECT, PLAN)}`,
            `Sessions: ${session.id} leader.default${writers.map((w) => ` → ${w.id} ${w.profileKey}`).join("")}  (in ${join(dir, ".nbook", "agent.sqlite")})`,
            "",
            "Look at what happened:",
            `  ${cmd} sessions list --tree ${flag}`,
            `  ${cmd} sessions show ${session.id} ${flag}`,
            ...writers.map((w) => `  ${cmd} sessions show ${w.id} ${flag}`),
            "Try a workflow offline:",
            `  ${cmd} workflows run brainstorm --args '{"topic":"the bell"}' --script ${typedPath(BRAINSTORM_SCRIPT)} ${flag} --project ${PROJECT}`,
            "Continue with a real model:",
            `  1. ${cmd} models add openai --key-env OPENAI_API_KEY ${flag}  (or anthropic, deepseek, qwen, ollama, …: see ${typedPath(MODELS_DOC)})`,
            `  2. ${cmd} models test openai/gpt-4o-mini ${flag}`,
            `  3. ${cmd} models list ${flag}`,
            `  4. ${cmd} chat ${flag} --project ${PROJECT}`,
            "",
          ].join("\n"),
        );
      } catch (e) {
        reportCliError(e);
      } finally {
        harness?.close();
      }
    });
}
