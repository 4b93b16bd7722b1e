import { LineCounter, parseDocument } from "yaml";
import { NbError } from "../../core/errors.js";
import { parsePointer } from "../../core/json-pointer.js";
import { CustomCalendar, type CustomConfig } from "./custom.js";
import { GregorianCalendar, type GregorianConfig } from "./gregorian.js";
import { ScriptedCalendar } from "./script.js";
import { SimpleCalendar, type SimpleConfig } from "./simple.js";
import type { Calendar } from "./types.js";

/** Project language, which picks a Gregorian calendar's default era words and format. */
export type CalendarLanguage = "en" | "zh";

/** Build a calendar from settings (as read from calendar.yaml); throws `config_error` naming the problem. */
export function createCalendar(settings: unknown, language: CalendarLanguage = "en"): Calendar {
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
    throw new NbError("config_error", "calendar settings must be a mapping with a `type`");
  }
  const type = (settings as { type?: unknown }).type;
  switch (type) {
    case "gregorian":
      return new GregorianCalendar({ language, ...(settings as GregorianConfig) });
    case "simple":
      return new SimpleCalendar(settings as SimpleConfig);
    case "custom": {
      const base = new CustomCalendar(settings as CustomConfig);
      return base.script === undefined ? base : new ScriptedCalendar(base, base.script);
    }
    default: {
      const message = `calendar type ${type === undefined ? "is missing" : `"${String(type)}" is unknown`} (use gregorian, simple or custom)`;
      throw new NbError("config_error", message, { fields: [{ pointer: "/type", message }] });
    }
  }
}

/**
 * Parse the text of a calendar.yaml. A YAML syntax error or an invalid setting becomes a
 * `config_error` whose message names the file, the line and the problem.
 */
export function parseCalendarYaml(
  text: string,
  language: CalendarLanguage = "en",
  file = "calendar.yaml",
): Calendar {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) {
    const line = syntax.linePos?.[0].line ?? lines.linePos(syntax.pos[0]).line;
    const problem = syntax.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    throw new NbError("config_error", `${file} line ${line}: ${problem}`);
  }
  try {
    return createCalendar(doc.toJS(), language);
  } catch (e) {
    if (!(e instanceof NbError) || e.code !== "config_error") throw e;
    const fields = e.fields ?? [{ pointer: "", message: e.message }];
    const where = (pointer: string) => {
      const node = doc.getIn(parsePointer(pointer), true) as { range?: [number, number, number] } | undefined;
      const offset = node?.range?.[0] ?? keyOffset(doc, pointer);
      return offset === undefined ? "" : ` line ${lines.linePos(offset).line}`;
    };
    const detail = fields.map(
      (f) => `${file}${where(f.pointer)}${f.pointer ? ` (${f.pointer})` : ""}: ${f.message}`,
    );
    throw new NbError("config_error", detail.join("\n"), { fields });
  }
}

/** Offset of the nearest existing ancestor of a pointer (a missing key is reported at its parent). */
function keyOffset(doc: ReturnType<typeof parseDocument>, pointer: string): number | undefined {
  const path = parsePointer(pointer);
  while (path.length) {
    path.pop();
    const node = (path.length ? doc.getIn(path, true) : doc.contents) as {
      range?: [number, number, number];
    } | null;
    if (node?.range) return node.range[0];
  }
  return undefined;
}
