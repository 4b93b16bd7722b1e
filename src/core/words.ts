/**
 * Words in a text as a writer counts them: each CJK character is a word, and so is each run of
 * letters or digits (apostrophes and hyphens inside a word keep it whole).
 */
export function countWords(text: string): number {
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu);
  const rest = text.replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu, " ");
  const words = rest.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu);
  return (cjk?.length ?? 0) + (words?.length ?? 0);
}
