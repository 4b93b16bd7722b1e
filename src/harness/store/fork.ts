import type { Entry, EntryInput } from "./schema.js";

/**
 * An entry of a session's path as its fork appends it: the same kind and data, with the ids that
 * point into the path mapped to the fork's copies (`ids`: original → copy). Queue items stay with
 * the session that consumed them, so a copied user message names none.
 */
export function forkedInput(e: Entry, ids: ReadonlyMap<string, string>): EntryInput {
  const mapped = (id: string) => ids.get(id) ?? id;
  switch (e.kind) {
    case "user": {
      const { queueItemId: _consumed, ...data } = e.data;
      return { kind: "user", data };
    }
    case "approval_decision":
      return { kind: "approval_decision", data: { ...e.data, approvalId: mapped(e.data.approvalId) } };
    case "compaction":
      return {
        kind: "compaction",
        data: {
          ...e.data,
          firstKeptEntryId: e.data.firstKeptEntryId === null ? null : mapped(e.data.firstKeptEntryId),
        },
      };
    default:
      return { kind: e.kind, data: e.data } as EntryInput;
  }
}
