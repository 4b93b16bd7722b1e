import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import {
  listSkills,
  readSkillText,
  resolveSkillFile,
  SKILL_FILE,
  type SkillEntry,
  skillView,
} from "../../skills/index.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError, writeOut } from "../output.js";

interface Opts {
  workspace?: string;
  project?: string;
  json?: boolean;
}

/** A skill's row: the shared view, with its SKILL.md named beside its folder. */
function row(s: SkillEntry) {
  const { name, status, layer, path, ...rest } = skillView(s);
  return { name, status, layer, path, file: `${path}/${SKILL_FILE}`, ...rest };
}

/** `nbook skills list|show`. */
export function registerSkills(program: Command): void {
  const skills = program
    .command("skills")
    .description("List the agent skills (built-in, workspace and project layers) and show one");
  skills
    .command("list")
    .description("List the skills with their status (ok, or broken with the reason), layer and path")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (adds its skill layer)")
    .option("--json", "print JSON")
    .action((o: Opts) => {
      try {
        const { workspace, project } = locateProject(o);
        const rows = listSkills(workspace, project).map(row);
        if (o.json) {
          printJson({ skills: rows });
          return;
        }
        for (const r of rows) {
          const what = r.status === "ok" ? r.description : `BROKEN ${r.file}: ${r.reason}`;
          writeOut(`${r.name.padEnd(22)}${r.status.padEnd(8)}${r.layer.padEnd(11)}${what}\n`);
        }
        if (rows.length === 0) writeOut("(no skills)\n");
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
  skills
    .command("show")
    .description("Show a skill: its layer, path and SKILL.md")
    .argument("<name>", "skill name")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project")
    .action((name: string, o: Opts) => {
      try {
        const { workspace, project } = locateProject(o);
        const s = listSkills(workspace, project).find((x) => x.name === name);
        if (!s) throw new NbError("not_found", `No skill named ${name} (nbook skills list shows them)`);
        if (s.status === "broken")
          throw new NbError("config_error", `Skill ${name} is broken: ${s.path}/${SKILL_FILE}: ${s.reason}`);
        const text = readSkillText(resolveSkillFile(workspace, project, s.locator));
        writeOut(`# ${s.name} (${s.layer}, ${s.path}; agents read ${s.locator})\n\n${text}`);
      } catch (e) {
        reportCliError(e);
      }
    });
}
