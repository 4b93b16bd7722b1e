import { z } from "zod";
import { entryKey } from "./define.js";
import type { Profile } from "./types.js";

/** JSON Schema of a zod schema, without the $schema header; null when absent. */
export function jsonSchema(s: z.ZodType | undefined): unknown {
  if (!s) return null;
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** The public description of a profile: what `get_agent_profile` returns too. */
export function describeProfile(p: Profile) {
  return {
    key: p.key,
    name: p.name,
    description: p.description,
    creationMode: p.creation,
    createAgentAllowed: p.creation === "public",
    source: p.source,
    InitialSchema: jsonSchema(p.initial),
    PayloadSchema: jsonSchema(p.payload),
    OutputSchema: jsonSchema(p.output),
    toolKeys: p.tools.map(entryKey),
  };
}
