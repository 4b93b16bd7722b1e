/**
 * Scene breaks as manuscripts write them: `***`, `* * *`, `#`, `---` (Markdown's own thematic break
 * forms, kept as `* * *`) and the CJK ornaments `＊＊＊`, `◇◇◇`, `◆◆◆`, `※※※` (plain text in
 * Markdown, kept as written).
 */
const ASCII_BREAK = /^(?:(?:\\?\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,}|\\?#)$/;
const CJK_BREAK = /^(?:[＊◇◆※○●☆★]\s*){3,}$/;

/** The canonical Markdown scene break. */
export const SCENE_BREAK = "* * *";

/** The line a scene-break line is written as in a chapter, or null when it is not one. */
export function sceneBreak(line: string): string | null {
  const t = line.trim();
  if (ASCII_BREAK.test(t)) return SCENE_BREAK;
  if (CJK_BREAK.test(t)) return t;
  return null;
}
