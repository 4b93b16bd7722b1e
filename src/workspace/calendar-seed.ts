/**
 * The era words and format a new project's calendar states, by project language: the Gregorian
 * calendar's own defaults (a unit test holds the two equal), spelled out so the template needs no
 * calendar code.
 */
const SEED_GREGORIAN = {
  en: {
    format: "{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02} {era}",
    eras: { after: "AD", before: "BC" },
  },
  zh: {
    format: "{era}{year}年{month:02}月{day:02}日 {hour:02}:{minute:02}:{second:02}",
    eras: { after: "公元", before: "公元前" },
  },
} as const;

/** The calendar.yaml a new project starts with: Gregorian, era words and format by project language. */
export function defaultCalendarYaml(meta: { language: "en" | "zh" }): string {
  const d = SEED_GREGORIAN[meta.language];
  const intro =
    meta.language === "zh"
      ? [
          "# 世界引擎历法：世界时间（以秒计的整数）与文字之间的转换。",
          "# type 可为 gregorian（公历）、simple（单位链）或 custom（自创历法），见 docs/world-engine.md。",
          "# format 中的 {month:02} 表示补零到两位；补零的格式可以原样解析回来。",
        ]
      : [
          "# World Engine calendar: how world time (an integer count of seconds) is written as text.",
          "# type: gregorian, simple (a chain of units) or custom (an invented calendar); see docs/world-engine.md.",
          "# In format, {month:02} pads to two digits; padded formats parse back.",
        ];
  return [
    ...intro,
    "type: gregorian",
    `language: ${meta.language}`,
    "eras:",
    `  after: "${d.eras.after}"`,
    `  before: "${d.eras.before}"`,
    `format: "${d.format}"`,
    "",
  ].join("\n");
}
