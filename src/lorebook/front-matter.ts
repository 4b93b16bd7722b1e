import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { zodFieldErrors } from "../core/validate.js";
import { yamlErrorLine } from "../core/yaml-error.js";

const Key = z.string().trim().min(1).max(200);
/** One key or a list of them: `keys: Mara` reads as `keys: [Mara]`. */
const Keys = z.union([Key.transform((k) => [k]), z.array(Key).max(100)]);

/**
 * The canon fields of a lorebook entry's YAML front matter; other keys (tags, notes) are allowed
 * and ignored. An entry takes part in activation when it has a key or is `always`.
 */
export const LoreFrontMatterSchema = z.looseObject({
  title: z.string().trim().min(1).max(200).optional(),
  keys: Keys.default([]),
  aliases: Keys.default([]),
  always: z.boolean().default(false),
  /** Higher first when the budget cuts (default 0). */
  priority: z.number().int().min(-1000).max(1000).default(0),
  /** A World Engine subject id: its state at the scene's story time is shown beside the text. */
  subject: z.string().trim().min(1).max(200).optional(),
});
export type LoreFrontMatter = z.infer<typeof LoreFrontMatterSchema>;

/** A file's front matter and body, no front matter at all, or why it is broken (with its line). */
export type ParsedLoreFile =
  | { kind: "entry"; meta: LoreFrontMatter; body: string }
  | { kind: "plain" }
  | { kind: "broken"; line: number; message: string };

const BLOCK = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n?---\r?(?:\n|$)/;

/** Parse a lorebook file; a file that does not open with `---` is plain prose, not an entry. */
export function parseLoreFile(text: string): ParsedLoreFile {
  if (!/^\uFEFF?---\r?\n/.test(text)) return { kind: "plain" };
  const m = BLOCK.exec(text);
  if (!m) return { kind: "broken", line: 1, message: "front matter opened with --- is never closed" };
  let raw: unknown;
  try {
    raw = parseYaml(m[1]);
  } catch (e) {
    const line = (e as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    // The block starts on the file's second line.
    const message = yamlErrorLine(e, 1) ?? (e as Error).message.split("\n")[0];
    return {
      kind: "broken",
      line: line ? line + 1 : 1,
      message: `front matter is not valid YAML: ${message}`,
    };
  }
  const r = LoreFrontMatterSchema.safeParse(raw ?? {});
  if (!r.success) {
    const fields = zodFieldErrors(r.error);
    return {
      kind: "broken",
      line: fieldLine(m[1], fields[0]?.pointer ?? ""),
      message: `front matter: ${fields.map((f) => `${f.pointer || "/"}: ${f.message}`).join("; ")}`,
    };
  }
  return { kind: "entry", meta: r.data, body: text.slice(m[0].length).trim() };
}

/** The file line of the front matter key a pointer starts with (line 1 is the opening ---). */
function fieldLine(block: string, pointer: string): number {
  const key = pointer.split("/")[1];
  if (!key) return 1;
  const at = block.split(/\r?\n/).findIndex((l) => l.startsWith(`${key}:`));
  return at < 0 ? 1 : at + 2;
}
