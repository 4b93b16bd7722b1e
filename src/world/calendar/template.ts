import { NbError } from "../../core/errors.js";

/** How a calendar field may be shown: as a number, by name, or both. */
export interface FieldSpec {
  numeric: boolean;
  /** `names[i]` stands for the value `nameBase + i`. */
  names?: readonly string[];
  nameBase?: number;
}

/** One piece of a compiled format: literal text or a field with its style and zero-padding width. */
export type TemplatePart =
  | { kind: "text"; text: string }
  | { kind: "field"; field: string; style: "num" | "name"; pad: number };

const TOKEN = /\{\{|\}\}|\{([^{}:]+)(?::([^{}]*))?\}|[{}]/gu;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A compiled format string such as `{year}-{month:02}-{day:02}`. Tokens are `{field}`, `{field:0N}`
 * (zero-padded to N digits) and `{field:name}`; `{{` and `}}` are literal braces. The same template
 * both renders values and parses them back, so padded output always parses.
 */
export class Template {
  readonly source: string;
  readonly parts: readonly TemplatePart[];
  readonly fields: ReadonlySet<string>;
  private readonly specs: Readonly<Record<string, FieldSpec>>;
  private regex?: RegExp;
  private groups: Array<{ field: string; style: "num" | "name" }> = [];

  constructor(source: string, specs: Readonly<Record<string, FieldSpec>>) {
    this.source = source;
    this.specs = specs;
    this.parts = compile(source, specs);
    this.fields = new Set(this.parts.flatMap((p) => (p.kind === "field" ? [p.field] : [])));
  }

  /** Render numeric field values; a field shown by name uses its name list. */
  render(values: Readonly<Record<string, number>>): string {
    let out = "";
    for (const p of this.parts) {
      if (p.kind === "text") {
        out += p.text;
        continue;
      }
      const v = values[p.field];
      if (p.style === "name") {
        const spec = this.specs[p.field];
        out += spec.names![v - (spec.nameBase ?? 0)];
      } else {
        const digits = String(Math.abs(v)).padStart(p.pad, "0");
        out += v < 0 ? `-${digits}` : digits;
      }
    }
    return out;
  }

  /**
   * Match a calendar string and return each field's numeric value, or null when the text does not
   * have the template's shape. A field that appears twice must carry the same value both times.
   */
  match(text: string): Map<string, number> | null {
    const m = this.compiledRegex().exec(text);
    if (!m) return null;
    const values = new Map<string, number>();
    this.groups.forEach((g, i) => {
      const raw = m[i + 1];
      const spec = this.specs[g.field];
      const v = g.style === "name" ? spec.names!.indexOf(raw) + (spec.nameBase ?? 0) : Number(raw);
      const prev = values.get(g.field);
      if (prev !== undefined && prev !== v) {
        throw new NbError("invalid_input", `${g.field} is given twice with different values in "${text}"`);
      }
      values.set(g.field, v);
    });
    return values;
  }

  private compiledRegex(): RegExp {
    if (this.regex) return this.regex;
    let src = "^";
    for (const p of this.parts) {
      if (p.kind === "text") {
        src += escapeRegex(p.text);
        continue;
      }
      this.groups.push({ field: p.field, style: p.style });
      if (p.style === "name") {
        const names = [...this.specs[p.field].names!].sort((a, b) => b.length - a.length);
        src += `(${names.map(escapeRegex).join("|")})`;
      } else {
        src += p.pad > 1 ? `(-?\\d{${p.pad},})` : "(-?\\d+)";
      }
    }
    this.regex = new RegExp(`${src}$`, "u");
    return this.regex;
  }
}

function compile(source: string, specs: Readonly<Record<string, FieldSpec>>): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const pushText = (text: string) => {
    const last = parts[parts.length - 1];
    if (last?.kind === "text") last.text += text;
    else if (text) parts.push({ kind: "text", text });
  };
  let at = 0;
  for (const m of source.matchAll(TOKEN)) {
    pushText(source.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[0] === "{{" || m[0] === "}}") {
      pushText(m[0][0]);
      continue;
    }
    if (m[1] === undefined) {
      throw new NbError(
        "config_error",
        `format "${source}": unmatched "${m[0]}" (write {{ or }} for a literal brace)`,
      );
    }
    const field = m[1].trim();
    const spec = specs[field];
    if (!spec) {
      throw new NbError(
        "config_error",
        `format "${source}": unknown field {${field}} (known: ${Object.keys(specs).join(", ")})`,
      );
    }
    parts.push(fieldPart(source, field, spec, m[2]));
  }
  pushText(source.slice(at));
  if (!parts.some((p) => p.kind === "field")) {
    throw new NbError("config_error", `format "${source}" shows no calendar field`);
  }
  return parts;
}

function fieldPart(source: string, field: string, spec: FieldSpec, option: string | undefined): TemplatePart {
  const opt = option?.trim();
  if (opt === "name" || (opt === undefined && !spec.numeric)) {
    if (!spec.names?.length) throw new NbError("config_error", `format "${source}": {${field}} has no names`);
    return { kind: "field", field, style: "name", pad: 0 };
  }
  if (!spec.numeric)
    throw new NbError("config_error", `format "${source}": {${field}} can only be shown by name`);
  if (opt === undefined) return { kind: "field", field, style: "num", pad: 0 };
  if (/^0\d$/.test(opt)) return { kind: "field", field, style: "num", pad: Number(opt) };
  throw new NbError(
    "config_error",
    `format "${source}": {${field}:${opt}} is not a known style (use {${field}:02} for zero-padding or {${field}:name})`,
  );
}
