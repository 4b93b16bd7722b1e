import { z } from "zod";

/**
 * Tools sent on demand. A profile with many tools may name sets of rarely needed ones in the
 * binding of its `load_tools` entry (`{ key: "load_tools", sets: { plot_write: [...] } }`): those
 * tools stay on its allowlist and may be called at any time, but their definitions are sent only
 * from the step after a `load_tools` call that names their set, which keeps the fixed cost of every
 * turn down (the definitions are most of it).
 */
export const LOAD_TOOLS = "load_tools";

const SET_NAME = /^[a-z][a-z0-9_]*$/;

export const OnDemandBindingSchema = z
  .object({
    sets: z.record(z.string().regex(SET_NAME, "a set name is snake_case"), z.array(z.string().min(1)).min(1)),
  })
  .strict()
  .superRefine((b, ctx) => {
    // A tool in two sets would load with either, so the sets would not say what a call loads.
    const seen = new Set<string>();
    for (const [name, keys] of Object.entries(b.sets)) {
      keys.forEach((key, i) => {
        if (seen.has(key))
          ctx.addIssue({ code: "custom", path: ["sets", name, i], message: `${key} is in another set` });
        seen.add(key);
      });
    }
  });
export type OnDemandBinding = z.infer<typeof OnDemandBindingSchema>;

/** The sets a `load_tools` binding declares (none for a binding without a valid `sets`). */
export function onDemandSets(
  binding: Readonly<Record<string, unknown>> | undefined,
): OnDemandBinding["sets"] {
  const r = OnDemandBindingSchema.safeParse(binding ?? {});
  return r.success ? r.data.sets : {};
}
