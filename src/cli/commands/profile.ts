import type { Command } from "commander";
import { overridesBuiltin } from "../../profiles/catalog.js";
import { describeProfile } from "../../profiles/describe.js";
import { openCliContext } from "../context.js";
import { printJson, reportCliError, writeErr, writeOut } from "../output.js";

/** `nbook profile list|show`. */
export function registerProfile(program: Command): void {
  const profile = program.command("profile").description("List and inspect agent profiles");
  profile
    .command("list")
    .description(
      "List the usable profiles (built-in, user and project layers; an override of a built-in is marked) and any that failed to load",
    )
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (adds its profile layer)")
    .option("--json", "print JSON")
    .action((o: { workspace?: string; project?: string; json?: boolean }) => {
      try {
        const { catalog } = openCliContext(o);
        const rows = catalog.list().map((p) => ({
          key: p.key,
          name: p.name,
          creation: p.creation,
          source: p.source,
          overridesBuiltin: overridesBuiltin(p),
          tools: p.tools.length,
        }));
        if (o.json) {
          printJson({ profiles: rows, problems: catalog.problems });
          return;
        }
        for (const r of rows) {
          writeOut(
            `${r.key.padEnd(18)}${r.creation.padEnd(13)}${r.source.padEnd(9)}${r.tools} tools  ${r.name}${r.overridesBuiltin ? `  [overrides the built-in ${r.key}]` : ""}\n`,
          );
        }
        for (const p of catalog.problems) writeErr(`not loaded: ${p.file}: ${p.message}\n`);
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
  profile
    .command("show")
    .description("Show a profile: creation mode, schemas (JSON Schema) and tool keys")
    .argument("<key>", "profile key")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project")
    .action((key: string, o: { workspace?: string; project?: string }) => {
      try {
        const { catalog } = openCliContext(o);
        writeOut(`${JSON.stringify(describeProfile(catalog.get(key)), null, 2)}\n`);
      } catch (e) {
        reportCliError(e);
      }
    });
}
