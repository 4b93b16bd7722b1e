import type { TableDoc } from "../../plot/schema-doc.js";
import type { LiveTable } from "./runner.js";

/** One column as execute_sql {describe: true} reports it. */
export interface DescribedColumn {
  name: string;
  type: string;
  notNull: boolean;
  primaryKey: boolean;
  default: string | null;
  references: string | null;
  meaning: string | null;
}

export interface DescribedTable {
  name: string;
  meaning: string | null;
  columns: DescribedColumn[];
}

/**
 * Merge the live schema (what the file really has) with the documented meanings. Live tables and
 * columns win: a documented name missing from the file is left out, an undocumented one is listed
 * with meaning null.
 */
export function describeTables(
  live: LiveTable[],
  docs: Readonly<Record<string, TableDoc>>,
): DescribedTable[] {
  return live.map((t) => {
    const doc = docs[t.name];
    return {
      name: t.name,
      meaning: doc?.meaning ?? null,
      columns: t.columns.map((c) => ({ ...c, meaning: doc?.columns[c.name] ?? null })),
    };
  });
}

/** The described schema as compact text for a model. */
export function formatDescription(tables: DescribedTable[]): string {
  const out: string[] = [
    "Tables of this project's project.sqlite (names are snake_case; JSON columns hold JSON text).",
  ];
  for (const t of tables) {
    out.push("", `## ${t.name}${t.meaning ? ` — ${t.meaning}` : ""}`);
    for (const c of t.columns) {
      const flags = [
        c.type || "ANY",
        c.primaryKey ? "PK" : null,
        c.notNull ? "NOT NULL" : null,
        c.default !== null ? `DEFAULT ${c.default}` : null,
        c.references ? `-> ${c.references}` : null,
      ].filter(Boolean);
      out.push(`- ${c.name} (${flags.join(", ")})${c.meaning ? `: ${c.meaning}` : ""}`);
    }
  }
  return out.join("\n");
}
