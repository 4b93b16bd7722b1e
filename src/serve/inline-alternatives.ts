// The inline editor answers with its alternatives to a selected passage each between
// <alternative> tags; this reads them back, also from a partial (streaming) answer, for the route
// and for the workbench, which shows them as they arrive.

/** How many alternatives the inline editor is asked for, and the most that are kept. */
export const MAX_ALTERNATIVES = 3;

/** The closed alternatives in order (at most MAX_ALTERNATIVES), and the text of one still open. */
export function parseAlternatives(answer: string): { alternatives: string[]; open: string | null } {
  const alternatives: string[] = [];
  const tag = /<alternative>([\s\S]*?)(<\/alternative>|$)/g;
  let open: string | null = null;
  for (let m = tag.exec(answer); m; m = tag.exec(answer)) {
    const text = trimBlankLines(m[1]!);
    if (m[2]) {
      if (text && alternatives.length < MAX_ALTERNATIVES) alternatives.push(text);
    } else open = alternatives.length < MAX_ALTERNATIVES ? text.replace(/<\/?[a-z]*$/, "") : null;
  }
  return { alternatives, open };
}

/** The text without the blank lines the model puts around it inside the tags (spaces within lines stay). */
function trimBlankLines(text: string): string {
  return text.replace(/^[ \t]*\r?\n/, "").replace(/\r?\n[ \t]*$/, "");
}
