import { DOMParser, type parseHTML } from "linkedom";

/** The DOM types come from linkedom; the project has no DOM lib. */
export type DomDocument = ReturnType<typeof parseHTML>["document"];
export type DomElement = ReturnType<DomDocument["createElement"]>;

/** Parse XML (OPF, NCX, container.xml, docProps, an XHTML navigation document). */
export function parseXml(text: string): DomDocument {
  return new DOMParser().parseFromString(text, "text/xml") as unknown as DomDocument;
}

/** An element's name without its namespace prefix (linkedom's XML keeps the prefix in localName). */
export function localOf(e: DomElement): string {
  return e.tagName.replace(/^[^:]*:/, "");
}

/** Elements named `local` under `root`, with or without a namespace prefix (`dc:title`, `title`). */
export function byLocalName(root: DomDocument | DomElement, local: string): DomElement[] {
  // linkedom's XML getElementsByTagName("*") finds nothing; querySelectorAll does.
  return ([...root.querySelectorAll("*")] as DomElement[]).filter((e) => localOf(e) === local);
}

/** The trimmed text of the first element named `local`, or undefined. */
export function firstText(root: DomDocument | DomElement, local: string): string | undefined {
  const t = byLocalName(root, local)[0]?.textContent?.trim();
  return t || undefined;
}
