import { Parser } from "htmlparser2";

// What rendered Markdown may contain: the elements CommonMark, GFM tables/strikethrough and
// footnotes produce, and attributes that cannot run code. Anything else is a finding.
const TAGS = new Set(
  "p h1 h2 h3 h4 h5 h6 em strong code pre blockquote ul ol li a img hr br table thead tbody tr th td s sup section span".split(
    " ",
  ),
);
const ATTRS = new Set(["href", "src", "alt", "title", "class", "id", "start", "style", "rel", "target"]);

/** The problems of an HTML fragment as a sanitiser sees them (empty when it is safe). */
export function unsafeParts(html: string): string[] {
  const found: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (!TAGS.has(name)) found.push(`tag <${name}>`);
        for (const [k, v] of Object.entries(attrs)) {
          if (!ATTRS.has(k)) found.push(`attribute ${k} on <${name}>`);
          if (
            (k === "href" || k === "src") &&
            /^\s*[a-z][a-z0-9+.-]*:/i.test(v) &&
            !/^(https?|mailto):|^data:image\/(png|gif|jpeg|webp);/i.test(v)
          )
            found.push(`${k}="${v}"`);
          if (k === "style" && !/^text-align:(left|right|center)$/.test(v)) found.push(`style="${v}"`);
        }
      },
      oncomment() {
        found.push("comment");
      },
      onprocessinginstruction(name) {
        found.push(`declaration ${name}`);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return found;
}
