import type { BriefDecision, BriefScene, ChapterWriterBrief } from "./brief.js";
import type { BeatKind, BriefKey } from "./schemas.js";

/** Fixed wording of the brief in each project language. */
const L = {
  en: {
    title: "# Chapter Writer Brief",
    chapter: "Chapter",
    status: "Status",
    intro:
      "> Write this chapter from the frame below. World state is summarised per scene; look up more with execute_world (read-only) if needed.",
    goal: "## Goal and landing",
    goalLine: "Goal",
    ending: "Landing",
    params: "## Parameters (override the writer's defaults)",
    pov: "Point of view",
    tone: "Tone",
    info: "## Information control (required)",
    infoEmpty:
      "⚠ Not set: fill in what the reader knows, what the protagonist knows, what must stay hidden and what may only be hinted.",
    readerKnows: "Reader knows",
    protagonistKnows: "Protagonist knows",
    mustHide: "Must stay hidden",
    hintOnly: "Hint only, never say outright",
    pacingH: "## Pacing / pull into the next chapter",
    pacing: "Pacing",
    opening: "Opening hook",
    doNotWrite: "## Do not write",
    warnings: "## Warnings",
    scenes: "## Plot points by scene",
    noScenes: "No scenes are attached to this chapter yet.",
    thread: "Thread",
    main: " (main thread)",
    summary: "Summary",
    purpose: "Purpose",
    notFilled: "(not filled)",
    tip: "Writing tip",
    threadTip: "Thread writing tip",
    threadSummary: "Thread so far",
    outcome: "Outcome",
    pacingRole: "Pacing role",
    time: "Time",
    notAnchored: "not anchored",
    location: "Location",
    slices: "World events in range",
    states: "Subject states at the scene's end",
    unresolved: "Unknown to the World Engine",
    patches: "changes",
    tasks: "## Promise tasks in this chapter",
    tasksNote: "> Work these into the prose; never copy the instructions into the text.",
    taskScene: (t: string) => `### Scene "${t}"`,
    instructionNote: "This time",
    payoffExpectation: "Intended dramatic effect",
    decisions: "## Open decisions (warning)",
    decisionsNote:
      "> These are undecided. Do not hard-code any candidate answer; keep the prose open on these points, and ask the leader if the chapter needs a ruling.",
    question: "Question",
    options: "Options",
    noOptions: "none listed",
    why: "Why it is here",
    reading: "## Suggested reading",
  },
  zh: {
    title: "# 章节写作简报",
    chapter: "章节",
    status: "状态",
    intro: "> 按下面的框架写作本章。每个场景附有世界状态摘要；需要更多时可用 execute_world（只读）查询。",
    goal: "## 本章目标与落点",
    goalLine: "目标",
    ending: "落点",
    params: "## 本章参数（覆盖 writer 默认）",
    pov: "视角",
    tone: "语气",
    info: "## 信息控制（必填）",
    infoEmpty: "⚠ 未设置：请填写读者已知、主角已知、必须隐藏、可暗示但不可明说。",
    readerKnows: "读者已知",
    protagonistKnows: "主角已知",
    mustHide: "必须隐藏",
    hintOnly: "可暗示但不可明说",
    pacingH: "## 节奏 / 下一章牵引",
    pacing: "节奏",
    opening: "开场钩子",
    doNotWrite: "## 禁写",
    warnings: "## 警告",
    scenes: "## 关键剧情点（按场景）",
    noScenes: "本章还没有挂接场景。",
    thread: "线索",
    main: "（主线）",
    summary: "概要",
    purpose: "目的",
    notFilled: "（未填写）",
    tip: "写作提示",
    threadTip: "线索写作提示",
    threadSummary: "线索至今",
    outcome: "结果类型",
    pacingRole: "节奏角色",
    time: "时间",
    notAnchored: "未锚定",
    location: "地点",
    slices: "时间范围内的世界事件",
    states: "场景结束时的主体状态",
    unresolved: "World Engine 中不存在",
    patches: "处变化",
    tasks: "## 本章 Promise 任务",
    tasksNote: "> 把这些任务融入正文，不要照抄指示。",
    taskScene: (t: string) => `### 场景「${t}」`,
    instructionNote: "本次指示",
    payoffExpectation: "预期戏剧效果",
    decisions: "## 未决决策警告",
    decisionsNote: "> 以下问题尚未决定。不要把任何候选答案写死；相关处保持开放，需要裁决时请询问 leader。",
    question: "问题",
    options: "选项",
    noOptions: "未列出",
    why: "相关原因",
    reading: "## 建议读取",
  },
} as const;

const KIND_LABEL: Record<"en" | "zh", Record<BeatKind, string>> = {
  en: { plant: "Plant", advance: "Advance", setback: "Setback", payoff: "Payoff" },
  zh: { plant: "建立", advance: "推进", setback: "反挫", payoff: "兑现" },
};

const KIND_INSTRUCTION: Record<"en" | "zh", Record<BeatKind, string>> = {
  en: {
    plant: "seed it naturally; do not explain it yet",
    advance: "touch on it in passing and keep the suspense",
    setback: "seem to reveal it, then pull back; no real payoff",
    payoff: "deliver it head-on, do not merely repeat earlier hints, and show the consequences",
  },
  zh: {
    plant: "自然埋下，暂不解释",
    advance: "侧面提及，保持悬念",
    setback: "看似揭示后收回，不做真正兑现",
    payoff: "正面兑现，不要只重复之前的暗示，并写出后果",
  },
};

function reasonText(lang: "en" | "zh", r: BriefDecision["reason"]): string {
  const left = r.chaptersLeft ?? 0;
  if (lang === "zh") {
    if (r.kind === "chapter") return "锚定在本章";
    if (r.kind === "deadline")
      return left > 0
        ? `截止于 ${left} 章之后`
        : left === 0
          ? "截止于本章"
          : `已超过截止 ${-left} 章，仍未决定`;
    const what = { scene: "场景", thread: "线索", promise: "Promise" }[r.kind];
    return `锚定在${what}「${r.target ?? ""}」`;
  }
  if (r.kind === "chapter") return "anchored on this chapter";
  if (r.kind === "deadline")
    return left > 0
      ? `due in ${left} chapter${left === 1 ? "" : "s"}`
      : left === 0
        ? "due at this chapter"
        : `overdue by ${-left} chapter${left === -1 ? "" : "s"} and still open`;
  return `anchored on ${r.kind} "${r.target ?? ""}"`;
}

function sceneLines(t: (typeof L)["en" | "zh"], s: BriefScene, n: number): string[] {
  const out = [`### ${n}. ${s.title}`];
  out.push(`- ${t.thread}: ${s.thread.title}${s.thread.isMain ? t.main : ""}`);
  out.push(`- ${t.summary}: ${s.summary || t.notFilled}`);
  out.push(`- ${t.purpose}: ${s.purpose || t.notFilled}`);
  if (s.outcomeType) out.push(`- ${t.outcome}: ${s.outcomeType}`);
  if (s.pacingRole) out.push(`- ${t.pacingRole}: ${s.pacingRole}`);
  if (s.writingTip) out.push(`- ${t.tip}: ${s.writingTip}`);
  if (s.thread.writingTip) out.push(`- ${t.threadTip}: ${s.thread.writingTip}`);
  if (s.thread.summary) out.push(`- ${t.threadSummary}: ${s.thread.summary}`);
  const a = s.worldAnchor;
  const time =
    a.startInstant === null || a.endInstant === null
      ? t.notAnchored
      : `${a.startTime ?? a.startInstant} ~ ${a.endTime ?? a.endInstant}`;
  out.push(`- ${t.time}: ${time}`);
  if (a.locationSubjectId) out.push(`- ${t.location}: ${a.locationSubjectId}`);
  if (s.world) {
    if (s.world.slices.length) {
      out.push(`- ${t.slices}:`);
      for (const sl of s.world.slices) {
        out.push(
          `  - ${sl.time ?? sl.instant} ${sl.title}${sl.summary ? ` — ${sl.summary}` : ""} (${sl.patchCount} ${t.patches})`,
        );
      }
    }
    if (s.world.subjects.length) {
      out.push(`- ${t.states}:`);
      for (const sub of s.world.subjects)
        out.push(`  - ${sub.name || sub.subjectId} (${sub.type})${sub.state ? `: ${sub.state}` : ""}`);
    }
    if (s.world.unresolvedSubjectIds.length)
      out.push(`- ${t.unresolved}: ${s.world.unresolvedSubjectIds.join(", ")}`);
  }
  return out;
}

/** Render the writer brief as Markdown in the project's language. */
export function renderBriefMarkdown(b: Omit<ChapterWriterBrief, "markdown">): string {
  const lang = b.language;
  const t = L[lang];
  const br = b.chapter.brief;
  const out: string[] = [
    t.title,
    "",
    `${t.chapter}: ${b.chapter.title} (${b.chapter.name})`,
    `${t.status}: ${b.status}`,
    "",
    t.intro,
  ];
  const section = (heading: string, lines: string[]) => {
    if (lines.length) out.push("", heading, ...lines);
  };
  const line = (label: string, key: BriefKey) => (br[key] ? [`- ${label}: ${br[key]}`] : []);

  section(t.goal, [...line(t.goalLine, "goal"), ...line(t.ending, "ending")]);
  section(t.params, [...line(t.pov, "pov"), ...line(t.tone, "tone")]);
  const info = [
    ...line(t.readerKnows, "readerKnows"),
    ...line(t.protagonistKnows, "protagonistKnows"),
    ...line(t.mustHide, "mustHide"),
    ...line(t.hintOnly, "hintOnly"),
  ];
  section(t.info, info.length ? info : [t.infoEmpty]);
  section(t.pacingH, [...line(t.pacing, "pacing"), ...line(t.opening, "opening")]);
  section(t.doNotWrite, br.doNotWrite ? [br.doNotWrite] : []);
  section(
    t.warnings,
    b.warnings.map((w) => `- ${w}`),
  );
  section(
    t.scenes,
    b.scenes.length
      ? b.scenes.flatMap((s, i) => [...(i ? [""] : []), ...sceneLines(t, s, i + 1)])
      : [t.noScenes],
  );

  if (b.promiseTasks.length) {
    const lines: string[] = [t.tasksNote];
    let scene = -1;
    for (const task of b.promiseTasks) {
      if (task.sceneId !== scene) {
        scene = task.sceneId;
        lines.push("", t.taskScene(task.sceneTitle));
      }
      const sep = lang === "zh" ? "：" : ": ";
      const name = lang === "zh" ? `（${task.promiseName}）` : ` (${task.promiseName})`;
      lines.push(
        `- [${KIND_LABEL[lang][task.kind]}] ${task.promiseTitle}${name}${sep}${KIND_INSTRUCTION[lang][task.kind]}`,
      );
      if (task.note) lines.push(`  - ${t.instructionNote}: ${task.note}`);
      if (task.payoffExpectation) lines.push(`  - ${t.payoffExpectation}: ${task.payoffExpectation}`);
    }
    section(t.tasks, lines);
  }

  if (b.openDecisions.length) {
    const lines: string[] = [t.decisionsNote];
    for (const d of b.openDecisions) {
      const opts = d.options.length
        ? d.options.map((o) => (o.note ? `${o.option} (${o.note})` : o.option)).join(" / ")
        : t.noOptions;
      lines.push(
        "",
        `### ${d.title} (${d.name})`,
        `- ${t.question}: ${d.question}`,
        `- ${t.options}: ${opts}`,
        `- ${t.why}: ${reasonText(lang, d.reason)}`,
      );
    }
    section(t.decisions, lines);
  }

  section(
    t.reading,
    b.suggestedReading.map((r) => `- ${r.path} (${r.relation}${r.note ? ` · ${r.note}` : ""})`),
  );
  return out.map((l) => l.trimEnd()).join("\n");
}
