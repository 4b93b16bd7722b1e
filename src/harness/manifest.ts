import type { LanguageModelV3FunctionTool, LanguageModelV3Message } from "@ai-sdk/provider";
import { z } from "zod";
import { CANON_HEAD, type Canon } from "../lorebook/canon.js";
import type { TokenCounter } from "../models/tokens.js";

export const MANIFEST_SECTION_KINDS = [
  "system",
  "skills",
  "agents_md",
  "mode",
  "tasks",
  "summary",
  "canon",
  "tools",
  "history",
] as const;

const SectionSchema = z
  .object({
    kind: z.enum(MANIFEST_SECTION_KINDS),
    label: z.string(),
    chars: z.number().int().nonnegative(),
    tokens: z.number().int().nonnegative(),
    /** Items in it: tools, messages. */
    items: z.number().int().nonnegative().optional(),
  })
  .strict();

const ReasonSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("always") }).strict(),
  z.object({ kind: z.literal("key"), key: z.string(), source: z.string() }).strict(),
  z
    .object({ kind: z.literal("recursion"), key: z.string(), via: z.string(), depth: z.number().int() })
    .strict(),
]);

const CanonItemSchema = z
  .object({ path: z.string(), title: z.string(), reason: ReasonSchema, tokens: z.number().int() })
  .strict();

/** What one model call was sent, section by section, with token counts (see docs/sessions.md). */
export const ManifestSchema = z
  .object({
    /** How the counts were made: the model family's tokenizer, or an estimate. */
    tokenizer: z.string(),
    sections: z.array(SectionSchema),
    totalTokens: z.number().int().nonnegative(),
    canon: z
      .object({
        included: z.array(CanonItemSchema),
        cut: z.array(CanonItemSchema),
        budgetTokens: z.number().int(),
        scene: z
          .object({
            sceneId: z.number().int(),
            title: z.string(),
            instant: z.number(),
            time: z.string().nullable(),
          })
          .strict()
          .nullable(),
        problems: z.array(
          z.object({ path: z.string(), line: z.number().int(), message: z.string() }).strict(),
        ),
      })
      .strict()
      .nullable(),
  })
  .strict();
export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestSection = z.infer<typeof SectionSchema>;

/** The known heads of the system prompt's sections, in the order the prompt puts them. */
const HEADS: [ManifestSection["kind"], string, string][] = [
  ["skills", "skills catalog", "## Skills\n"],
  ["agents_md", "AGENTS.md", "## Project instructions (AGENTS.md"],
  ["mode", "mode", "## Mode\n"],
  ["tasks", "task list", "## Task list"],
  ["summary", "compaction summary", "## Summary of the earlier conversation\n"],
  ["canon", "canon (lorebook)", CANON_HEAD],
];

/**
 * The system prompt cut at its section heads: each part keeps the blank line before its head, so
 * the parts' characters add up to the prompt's.
 */
function systemSections(system: string): { kind: ManifestSection["kind"]; label: string; text: string }[] {
  const cuts: { at: number; kind: ManifestSection["kind"]; label: string }[] = [];
  let from = 0;
  for (const [kind, label, head] of HEADS) {
    const at = system.indexOf(`\n\n${head}`, from);
    if (at < 0) continue;
    cuts.push({ at, kind, label });
    from = at + 2;
  }
  const out = [
    { kind: "system" as const, label: "profile prompt", text: system.slice(0, cuts[0]?.at ?? system.length) },
  ];
  cuts.forEach((c, i) => {
    out.push({
      kind: c.kind as "system",
      label: c.label,
      text: system.slice(c.at, cuts[i + 1]?.at ?? system.length),
    });
  });
  return out;
}

/** A tool as the provider is sent it: its name, description and parameter schema. */
export function toolText(t: LanguageModelV3FunctionTool): string {
  return JSON.stringify({ name: t.name, description: t.description, parameters: t.inputSchema });
}

/** The text of a history message as counted: its text parts, tool calls (`name input`) and tool results. */
export function messageTexts(m: LanguageModelV3Message): string[] {
  if (m.role === "system") return [m.content];
  const out: string[] = [];
  for (const p of m.content) {
    if (p.type === "text") out.push(p.text);
    else if (p.type === "tool-call") out.push(`${p.toolName} ${JSON.stringify(p.input)}`);
    else if (p.type === "tool-result") {
      const o = p.output;
      out.push(o.type === "text" || o.type === "error-text" ? o.value : JSON.stringify(o));
    }
  }
  return out;
}

/** The manifest of one call: its system prompt, tools and history as sent, and the canon it carried. */
export function buildManifest(input: {
  system: string;
  tools: readonly LanguageModelV3FunctionTool[];
  messages: readonly LanguageModelV3Message[];
  canon: Canon | null;
  counter: TokenCounter;
}): Manifest {
  const { counter } = input;
  const sections: ManifestSection[] = systemSections(input.system).map((s) => ({
    kind: s.kind,
    label: s.label,
    chars: s.text.length,
    tokens: counter.count(s.text),
  }));
  let toolChars = 0;
  let toolTokens = 0;
  for (const t of input.tools) {
    const text = toolText(t);
    toolChars += text.length;
    toolTokens += counter.count(text);
  }
  sections.push({
    kind: "tools",
    label: "tool definitions",
    chars: toolChars,
    tokens: toolTokens,
    items: input.tools.length,
  });
  const roles = new Map<string, { chars: number; tokens: number; items: number }>();
  for (const m of input.messages) {
    const r = roles.get(m.role) ?? { chars: 0, tokens: 0, items: 0 };
    for (const text of messageTexts(m)) {
      r.chars += text.length;
      r.tokens += counter.count(text);
    }
    r.items++;
    roles.set(m.role, r);
  }
  for (const [role, r] of roles) {
    sections.push({ kind: "history", label: `${role} messages`, ...r });
  }
  const item = (a: Canon["activation"]["included"][number]) => ({
    path: a.entry.path,
    title: a.entry.title,
    reason: a.reason,
    tokens: a.tokens,
  });
  return {
    tokenizer: counter.tokenizer,
    sections,
    totalTokens: sections.reduce((n, s) => n + s.tokens, 0),
    canon: input.canon
      ? {
          included: input.canon.activation.included.map(item),
          cut: input.canon.activation.cut.map(item),
          budgetTokens: input.canon.budgetTokens,
          scene: input.canon.scene,
          problems: input.canon.problems,
        }
      : null,
  };
}
