/** The longest slug made from a title (folder names stay short; plot names allow 120). */
const MAX_SLUG = 60;

/** An ASCII slug of a title (`Chapter 1 — The Bell` → `chapter-1-the-bell`); empty when it has no ASCII letters or digits. */
export function slugOf(title: string): string {
  const s = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return s.slice(0, MAX_SLUG).replace(/-+$/, "");
}

/** `base`, or `base-2`, `base-3` … — the first that `taken` does not hold (which it then does). */
export function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  taken.add(name);
  return name;
}
