import { expect } from "vitest";
import { type DispatchContext, dispatch } from "../../src/tools/dispatch.js";

/**
 * Run a call through the pipeline as a door does, and return its details and the id of the one
 * change the pipeline recorded for it (a failed call throws with its code).
 */
export async function recordedCall<T = any>(
  dctx: Omit<DispatchContext, "onChange">,
  key: string,
  input: unknown,
): Promise<{ details: T; text: string; id: string }> {
  const ids: string[] = [];
  const r = await dispatch({ key, input }, { ...dctx, onChange: (c) => ids.push(c.id) });
  if (!r.ok) throw new Error(`${key} failed: ${r.error.code} ${r.error.message}`);
  expect(ids).toHaveLength(1);
  return { details: r.details as T, text: r.text, id: ids[0] };
}
