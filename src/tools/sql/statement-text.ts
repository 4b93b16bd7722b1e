import { NbError } from "../../core/errors.js";

/** Statement kinds execute_sql accepts, by leading keyword. */
export type SqlCommand = "SELECT" | "WITH" | "VALUES" | "EXPLAIN" | "INSERT" | "UPDATE" | "DELETE";

const ALLOWED: ReadonlySet<string> = new Set<SqlCommand>([
  "SELECT",
  "WITH",
  "VALUES",
  "EXPLAIN",
  "INSERT",
  "UPDATE",
  "DELETE",
]);

const REFUSAL_REASONS: Readonly<Record<string, string>> = {
  PRAGMA: "PRAGMA statements are not allowed; use execute_sql {describe: true} to see the schema",
  ATTACH: "ATTACH is not allowed: execute_sql only reaches this project's project.sqlite",
  DETACH: "DETACH is not allowed: execute_sql only reaches this project's project.sqlite",
  VACUUM: "VACUUM (including VACUUM INTO) is not allowed",
  BEGIN: "Transactions are not allowed: each call is one statement, committed on its own",
  COMMIT: "Transactions are not allowed: each call is one statement, committed on its own",
  END: "Transactions are not allowed: each call is one statement, committed on its own",
  ROLLBACK: "Transactions are not allowed: each call is one statement, committed on its own",
  SAVEPOINT: "Transactions are not allowed: each call is one statement, committed on its own",
  RELEASE: "Transactions are not allowed: each call is one statement, committed on its own",
  CREATE: "Schema changes (DDL) are not allowed: the plot schema is managed by NeuroBook's migrations",
  DROP: "Schema changes (DDL) are not allowed: the plot schema is managed by NeuroBook's migrations",
  ALTER: "Schema changes (DDL) are not allowed: the plot schema is managed by NeuroBook's migrations",
  REPLACE: "REPLACE statements are not allowed; use INSERT or UPDATE",
  REINDEX: "REINDEX is not allowed",
  ANALYZE: "ANALYZE is not allowed",
};

/** A word-like token: a bare keyword/identifier, a quoted identifier, or a string literal. */
interface WordToken {
  text: string;
  quoted: boolean;
}

/**
 * The word tokens of an SQL text, skipping whitespace and comments. Quoted identifiers
 * ("x", [x], `x`) and string literals ('x') are returned unquoted with `quoted: true`, because
 * SQLite accepts a string literal where it expects an identifier.
 */
export function sqlWords(sql: string): WordToken[] {
  const out: WordToken[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      let j = i + 1;
      let text = "";
      for (; j < n; j++) {
        if (sql[j] === close) {
          if (close !== "]" && sql[j + 1] === close) {
            text += close;
            j++;
            continue;
          }
          break;
        }
        text += sql[j];
      }
      out.push({ text, quoted: true });
      i = j + 1;
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[j])) j++;
      out.push({ text: sql.slice(i, j), quoted: false });
      i = j;
    } else {
      i++;
    }
  }
  return out;
}

function refuse(message: string): never {
  throw new NbError("not_allowed", message, { fields: [{ pointer: "/sql", message }] });
}

/**
 * First line of defence, from the text alone: the leading keyword (after comments) must start an
 * allowed statement, EXPLAIN must explain one, and no table-valued `pragma_*` function may be named
 * (they are PRAGMA statements in another form and can reveal host file paths). Whether the
 * statement writes, and whether it is really one statement, is decided by SQLite afterwards.
 */
export function checkStatementText(sql: string): SqlCommand {
  const words = sqlWords(sql);
  const first = words[0];
  if (!first || first.quoted) refuse("Expected one SQL statement starting with a keyword");
  const command = first.text.toUpperCase();
  if (!ALLOWED.has(command)) {
    refuse(
      REFUSAL_REASONS[command] ??
        `${command} statements are not allowed; use SELECT, WITH, VALUES, EXPLAIN, INSERT, UPDATE or DELETE`,
    );
  }
  if (command === "EXPLAIN") {
    let k = 1;
    if (words[k]?.text.toUpperCase() === "QUERY" && words[k + 1]?.text.toUpperCase() === "PLAN") k += 2;
    const inner = words[k];
    const innerCommand = inner && !inner.quoted ? inner.text.toUpperCase() : "";
    if (!ALLOWED.has(innerCommand) || innerCommand === "EXPLAIN") {
      refuse("EXPLAIN may only explain a statement execute_sql itself allows");
    }
  }
  const pragmaFn = words.find((w) => /^pragma_/i.test(w.text));
  if (pragmaFn) {
    refuse(
      `Table-valued PRAGMA functions (${pragmaFn.text}) are not allowed; use execute_sql {describe: true} to see the schema`,
    );
  }
  return command as SqlCommand;
}
