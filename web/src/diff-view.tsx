// Diffs as the workbench shows them: a unified diff text (an approval's preview) coloured by line,
// and a two-text comparison (a save conflict) computed in the browser with the `diff` package.
import { diffChars, diffLines, diffWordsWithSpace } from "diff";

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "diff-file";
  if (line.startsWith("@@")) return "diff-hunk";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  return "diff-ctx";
}

/** A preview text (a unified diff, or any other text) with diff lines coloured. */
export function PreviewText({ text }: { text: string }) {
  return (
    <pre class="preview" data-testid="preview">
      {text.split("\n").map((line, i) => (
        <div key={i} class={lineClass(line)}>
          {line || " "}
        </div>
      ))}
    </pre>
  );
}

/** The lines that differ between what is on disk (`theirs`) and the user's text (`mine`). */
export function TwoWayDiff({ theirs, mine }: { theirs: string; mine: string }) {
  const parts = diffLines(theirs, mine);
  const rows: { cls: string; text: string }[] = [];
  for (const p of parts) {
    const lines = p.value.replace(/\n$/, "").split("\n");
    const cls = p.added ? "diff-add" : p.removed ? "diff-del" : "diff-ctx";
    const mark = p.added ? "+ " : p.removed ? "− " : "  ";
    for (const l of lines) rows.push({ cls, text: mark + l });
  }
  return (
    <pre class="preview" data-testid="conflict-diff">
      {rows.map((r, i) => (
        <div key={i} class={r.cls}>
          {r.text}
        </div>
      ))}
    </pre>
  );
}

/** A passage and its rewrite, word by word (character by character for CJK, which has no spaces). */
export function WordDiff({ before, after }: { before: string; after: string }) {
  const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(before + after);
  const parts = (cjk ? diffChars : diffWordsWithSpace)(before, after);
  return (
    <p class="word-diff" data-testid="word-diff">
      {parts.map((p, i) =>
        p.added ? (
          <ins key={i} class="diff-add">
            {p.value}
          </ins>
        ) : p.removed ? (
          <del key={i} class="diff-del">
            {p.value}
          </del>
        ) : (
          <span key={i}>{p.value}</span>
        ),
      )}
    </p>
  );
}
