import { YAMLError } from "yaml";

const CARET = /^\s*\^+\s*$/;

/**
 * A YAML error on one line: the problem, where it is and the text there. The yaml library ends its
 * message with a snippet on further lines (context, then a caret), so a report that keeps the first
 * line stops at "at line 2, column 1:". `lineOffset` turns the lines of a part of a file (a
 * front matter block) into the file's. Null for any other error.
 */
export function yamlErrorLine(e: unknown, lineOffset = 0): string | null {
  if (!(e instanceof YAMLError)) return null;
  const [head, , ...snippet] = e.message.split("\n");
  const problem = head.replace(/ at line \d+, column \d+:?$/, "");
  const pos = e.linePos?.[0];
  if (!pos) return problem;
  const where = `${problem} at line ${pos.line + lineOffset}, column ${pos.col}`;
  const caret = snippet.findIndex((l) => CARET.test(l));
  const context = caret > 0 ? snippet.slice(0, caret) : [];
  const at = context.at(-1)?.trim();
  if (at) return `${where}: ${at}`;
  // An empty line (the end of the file): the text before it is what went wrong.
  const before = context
    .slice(0, -1)
    .reverse()
    .find((l) => l.trim());
  return before ? `${where}, after: ${before.trim()}` : where;
}
