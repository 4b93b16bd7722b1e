import iconv from "iconv-lite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FETCH_DEFAULTS } from "../../src/web/config.js";
import { decodeBody } from "../../src/web/fetch/decode.js";
import { fetchPage } from "../../src/web/fetch/index.js";
import { type FixtureServer, respond, startFixtureServer } from "./fixture-server.js";

// Each text is prose in its language; the GB18030 one has four-byte characters (𠮷 U+20BB7 and
// CJK Extension A) and the Big5 one HKSCS characters (佢 哋 嘅 咗) that Node's own decoders lose.
const SAMPLES = [
  {
    label: "gbk",
    encoding: "gbk",
    decoder: "gb18030",
    title: "第一章 沉钟",
    text: "潮水退去的时候，我们在海边听到了钟声。这是一个关于城市和大海的故事，他说人们不会忘记那一天。",
  },
  {
    label: "gb18030",
    encoding: "gb18030",
    decoder: "gb18030",
    title: "第二章 𠮷㐀",
    text: "她在石头上写下了𠮷字和䶮字，我们都看见了。这是一个关于城市和大海的故事，他说人们不会忘记。",
  },
  {
    label: "big5",
    encoding: "big5-hkscs",
    decoder: "big5-hkscs",
    title: "第三章 鐘聲",
    text: "佢哋話呢度嘅鐘聲好大，我哋聽咗成晚。這是一個關於城市和大海的故事，他說人們不會忘記那一天。",
  },
  {
    label: "shift_jis",
    encoding: "shift_jis",
    decoder: "shift_jis",
    title: "第四章 鐘の音",
    text: "潮が引いたとき、私たちは海辺で鐘の音を聞いた。これは街と海の物語です。誰もその日を忘れない。",
  },
  {
    label: "euc-kr",
    encoding: "euc-kr",
    decoder: "euc-kr",
    title: "제5장 종소리",
    text: "조수가 빠졌을 때 우리는 바닷가에서 종소리를 들었다. 이것은 도시와 바다에 대한 이야기입니다.",
  },
] as const;

type Declared = "header" | "meta" | "http-equiv" | "undeclared";

function page(sample: (typeof SAMPLES)[number], declared: Declared): Buffer {
  const meta =
    declared === "meta"
      ? `<meta charset="${sample.label}">`
      : declared === "http-equiv"
        ? `<meta http-equiv="Content-Type" content="text/html; charset=${sample.label}">`
        : "";
  const paragraphs = Array.from({ length: 8 }, () => `<p>${sample.text}</p>`).join("\n");
  const html = `<!DOCTYPE html><html><head>${meta}<title>${sample.title}</title></head><body><article><h1>${sample.title}</h1>\n${paragraphs}</article></body></html>`;
  return iconv.encode(html, sample.encoding);
}

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
  for (const s of SAMPLES) {
    for (const d of ["header", "meta", "http-equiv", "undeclared"] as const) {
      const type = d === "header" ? `text/html; charset=${s.label}` : "text/html";
      server.route(`/${s.label}/${d}`, respond(200, { "content-type": type }, page(s, d)));
    }
  }
});
afterAll(() => server.close());

const settings = { ...FETCH_DEFAULTS, allowPrivate: ["127.0.0.1"] };

describe("fetched pages in East Asian encodings come back as correct text", () => {
  const cases = SAMPLES.flatMap((s) =>
    (["header", "meta", "http-equiv", "undeclared"] as const).map((d) => [s.label, d, s] as const),
  );
  it.each(cases)("%s declared by %s", async (label, declared, sample) => {
    const { page: p } = await fetchPage(server.url(`/${label}/${declared}`), settings);
    expect(p.title).toBe(sample.title);
    expect(p.content).toContain(sample.text);
    expect(p.content).not.toContain("\ufffd");
    expect(p.charset).toBe(sample.decoder);
    expect(p.charsetSource).toBe(
      declared === "header" ? "header" : declared === "undeclared" ? "detector" : "meta",
    );
  });
});

describe("decodeBody", () => {
  it("takes the header before a BOM, a BOM before the markup, the markup before the detector", () => {
    const gbk = iconv.encode('<meta charset="big5"><p>钟声</p>', "gbk");
    expect(decodeBody(gbk, "gbk", true)).toMatchObject({ charset: "gb18030", source: "header" });
    expect(decodeBody(gbk, undefined, true)).toMatchObject({ charset: "big5-hkscs", source: "meta" });
    // Markup declarations count only for markup.
    expect(decodeBody(gbk, undefined, false).source).toBe("detector");
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<meta charset="gbk"><p>鐘</p>', "utf16le"),
    ]);
    expect(decodeBody(utf16, undefined, true)).toMatchObject({
      text: '<meta charset="gbk"><p>鐘</p>',
      charset: "utf-16le",
      source: "bom",
    });
  });

  it("skips an unknown label and reads an ASCII-compatible page claiming UTF-16 as UTF-8", () => {
    const bytes = Buffer.from('<meta charset="utf-16"><p>café</p>', "utf8");
    expect(decodeBody(bytes, "x-unknown-charset", true)).toMatchObject({
      text: '<meta charset="utf-16"><p>café</p>',
      charset: "utf-8",
      source: "meta",
    });
  });

  it("keeps UTF-8 for a body cut in the middle of a character at the byte cap", () => {
    const full = Buffer.from("钟声".repeat(30_000), "utf8");
    const cut = full.subarray(0, 70_001); // 70,001 is not a multiple of 3
    const d = decodeBody(cut, undefined, false);
    expect(d.charset).toBe("utf-8");
    expect(d.text.startsWith("钟声钟声")).toBe(true);
  });

  it("reads undeclared non-UTF-8 Latin text as Windows-1252", () => {
    const bytes = iconv.encode("Un café déjà vu à Paris, naïve façade.", "windows-1252");
    expect(decodeBody(bytes, undefined, false)).toMatchObject({
      text: "Un café déjà vu à Paris, naïve façade.",
      charset: "windows-1252",
    });
  });

  it("maps labels to decoders that have every character: gbk → gb18030, big5 → big5-hkscs, latin1 → windows-1252", () => {
    const gb = iconv.encode("𠮷", "gb18030");
    expect(decodeBody(gb, "GB2312", false)).toMatchObject({ text: "𠮷", charset: "gb18030" });
    const hk = iconv.encode("嘅咗", "big5-hkscs");
    expect(decodeBody(hk, '"Big5"', false)).toMatchObject({ text: "嘅咗", charset: "big5-hkscs" });
    expect(decodeBody(Buffer.from([0x80]), "iso-8859-1", false)).toMatchObject({
      text: "€",
      charset: "windows-1252",
    });
  });
});
