import { existsSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import type { Harness } from "../../harness/loop.js";
import { openHarness } from "../../harness/open.js";
import { createSampleProject } from "../../workspace/sample.js";
import { Workspace } from "../../workspace/workspace.js";
import { attachDelegationPrinter } from "../demo-printer.js";
import { EXIT, reportCliError, writeOut } from "../output.js";

const SCRIPT = fileURLToPath(new URL("../../../examples/demo-script.yaml", import.meta.url));
const PROJECT = "tide-bell";
const CHAPTER = "manuscript/03-the-bell-road/index.md";
const PLAN = ".agent/plan/chapter-03.md";
const TASK =
  "Plan chapter 3 of The Tide-Bell Keeper from the canon, then have a writer draft it: Mira acts alone on the clear-sky bell.";

/** The first of ./nbook-demo, ./nbook-demo-2, … that does not exist yet. */
function freshDir(): string {
  for (let n = 1; ; n++) {
    const dir = resolve(n === 1 ? "nbook-demo" : `nbook-demo-${n}`);
    if (!existsSync(dir)) return dir;
  }
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
      "where to create the demo workspace (default: ./nbook-demo, or the next free name)",
    )
    .action(async (o: { dir?: string }) => {
      let harness: Harness | null = null;
      const out = (s: string) => writeOut(s);
      try {
        const dir = o.dir ? resolve(o.dir) : freshDir();
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
        const rel = relative(process.cwd(), dir) || ".";
        const flag = `--workspace ${rel}`;
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
            `  nbook sessions list --tree ${flag}`,
            `  nbook sessions show ${session.id} ${flag}`,
            ...writers.map((w) => `  nbook sessions show ${w.id} ${flag}`),
            "Continue with a real model:",
            `  1. add a provider and "defaultModel" to ${join(rel, ".nbook", "config.json")} (see docs/models.md)`,
            `  2. nbook models list ${flag}`,
            `  3. nbook chat ${flag} --project ${PROJECT}`,
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
