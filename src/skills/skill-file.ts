import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { zodFieldErrors } from "../core/validate.js";
import { yamlErrorLine } from "../core/yaml-error.js";

/** The file every skill folder must hold. */
export const SKILL_FILE = "SKILL.md";

/** A skill's name: lowercase kebab-case, at most 64 characters, equal to its folder's name. */
export const SkillName = z
  .string()
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lowercase kebab-case like keep-canon");

/** The YAML front matter of a SKILL.md. Other keys (license, metadata) are allowed and ignored. */
export const SkillFrontMatterSchema = z.object({
  name: SkillName,
  description: z.string().trim().min(1).max(1024),
  when_to_use: z.string().trim().min(1).max(1024),
  version: z.string().trim().min(1).max(64).optional(),
});

export type SkillFrontMatter = z.infer<typeof SkillFrontMatterSchema>;

/** The front matter of a SKILL.md, or the reason it is not valid (one line). */
export function parseSkillFile(
  text: string,
): { ok: true; meta: SkillFrontMatter } | { ok: false; reason: string } {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?(?:\n|$)/.exec(text);
  if (!m) return { ok: false, reason: "no YAML front matter (the file must start with a --- block)" };
  let raw: unknown;
  try {
    raw = parseYaml(m[1]);
  } catch (e) {
    // The front matter starts on the file's second line.
    const reason = yamlErrorLine(e, 1) ?? (e as Error).message.split("\n")[0];
    return { ok: false, reason: `front matter is not valid YAML: ${reason}` };
  }
  const r = SkillFrontMatterSchema.safeParse(raw ?? {});
  if (!r.success) {
    const fields = zodFieldErrors(r.error).map((f) => `${f.pointer || "/"}: ${f.message}`);
    return { ok: false, reason: `front matter: ${fields.join("; ")}` };
  }
  return { ok: true, meta: r.data };
}
