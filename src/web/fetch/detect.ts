import iconv from "iconv-lite";

// Frequent characters written the same in simplified and traditional Chinese: a GBK page decoded
// as GB18030, or a Big5 page as Big5-HKSCS, is full of them; the same bytes under a wrong
// decoding give rare characters instead.
const SHARED_HAN =
  "的一是不了在人有我他中上大和地到以就出可也你生能而子那得下自之年作用道行所然家事成方多去法如都同面起看定天分好小部其主理心本前但只想日者意力把十民第公此已工使情明性知全三又正外高由物手向";
const SIMPLIFIED =
  "这个们来为国时说会对发过后里种经么学现没动还进样开从实军无与长机关点业将两间问应战头体见话门东声员电数";
const TRADITIONAL =
  "這個們來為國時說會對發過後裡種經麼學現沒動還進樣開從實軍無與長機關點業將兩間問應戰頭體見話門東聲員電數嘅咗係唔佢哋喺冇嚟啲";
// The most frequent Hangul syllables: Korean prose is mostly these; Chinese bytes read as EUC-KR
// give Hangul too, but random syllables.
const HANGUL =
  "이의가는을다에고하지한로서기도리사자대어수일시정나아그요있거해습니것인들으적과주국내상보구전부위여게만제면라장소동성우와했되었를비음원오경할없말데까안모개명문중무때신생저분";

const setOf = (s: string) => new Set(Array.from(s));
const HANS = setOf(SHARED_HAN + SIMPLIFIED);
const HANT = setOf(SHARED_HAN + TRADITIONAL);
const KO = setOf(HANGUL);
const isKana = (c: number) => c >= 0x3041 && c <= 0x30ff;

interface Candidate {
  charset: string;
  fits: (ch: string, code: number) => boolean;
}

const CANDIDATES: Candidate[] = [
  { charset: "gb18030", fits: (ch) => HANS.has(ch) },
  { charset: "big5-hkscs", fits: (ch) => HANT.has(ch) },
  { charset: "shift_jis", fits: (_ch, code) => isKana(code) },
  { charset: "euc-kr", fits: (ch) => KO.has(ch) },
];

/** How well a decoding reads as its language: share of telling characters, less invalid sequences. */
function score(text: string, c: Candidate): number {
  let other = 0;
  let hits = 0;
  let invalid = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (code < 0x80) continue;
    other++;
    if (code === 0xfffd) invalid++;
    else if (c.fits(ch, code)) hits++;
  }
  return other ? (hits - 2 * invalid) / other : 0;
}

/** Below this score no CJK decoding is believed, and the bytes are read as Windows-1252. */
const MIN_SCORE = 0.08;

/**
 * Guess the charset of bytes that are not UTF-8 and declare nothing: each East Asian candidate
 * (GB18030, Big5-HKSCS, Shift_JIS, EUC-KR) decodes a sample and the one whose text is most like
 * its language wins; Windows-1252 when none reads as such.
 */
export function detectCharset(bytes: Uint8Array): string {
  const sample = Buffer.from(bytes.subarray(0, 64 * 1024));
  let best = { charset: "windows-1252", score: MIN_SCORE };
  for (const c of CANDIDATES) {
    const s = score(iconv.decode(sample, c.charset), c);
    if (s > best.score) best = { charset: c.charset, score: s };
  }
  return best.charset;
}
