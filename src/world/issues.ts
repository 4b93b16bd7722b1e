import type { Issue, IssueLabel, PatchOp } from "./api.js";

interface CatalogEntry {
  code: string;
  severity: "error" | "advisory";
  title: string;
  explanation: Issue["explanation"];
}

/** The issue catalog: one wording for every door (agents, CLI, UI). */
export const ISSUE_CATALOG: Record<IssueLabel, CatalogEntry> = {
  E1: {
    code: "broken-relative",
    severity: "error",
    title: "A relative change has no valid base",
    explanation: {
      whatHappened: "An increment found no finite number at its path, or an append found no array.",
      whyItMatters: "The change is skipped on replay, so the subject's state lacks it from that moment on.",
      suggestedAction:
        "Give the attribute a base earlier in time (replace it with a number or []), or edit the patch.",
    },
  },
  E2: {
    code: "dangling-ref",
    severity: "error",
    title: "A reference points at nothing valid",
    explanation: {
      whatHappened:
        "A declared ref attribute holds a value that is not subject://<id>, or names a subject that does not exist or has the wrong type.",
      whyItMatters: "Readers that follow the reference find nothing, or the wrong kind of subject.",
      suggestedAction:
        "Replace the attribute with a reference to an existing subject of the declared type, or clear it with null.",
    },
  },
  E3: {
    code: "invalid-path",
    severity: "error",
    title: "A patch path cannot be applied",
    explanation: {
      whatHappened:
        "The patch's path runs through a scalar, uses a bad or out-of-range array index, or removes by value outside a set.",
      whyItMatters: "The change is skipped on replay.",
      suggestedAction:
        "Edit the patch so its path addresses an existing container, or fix the data before it.",
    },
  },
  E4: {
    code: "cross-ref",
    severity: "error",
    title: "A patch reaches through a reference",
    explanation: {
      whatHappened: "The path passes through a subject:// value into another subject.",
      whyItMatters: "Each subject changes only through its own patches; the change is skipped on replay.",
      suggestedAction: "Write the change as a patch on the referenced subject itself.",
    },
  },
  E5: {
    code: "embedding-whole-replace",
    severity: "error",
    title: "A text container was replaced wholesale",
    explanation: {
      whatHappened: "A list or record of text entries was replaced with a non-empty value.",
      whyItMatters:
        "Text entries are the searchable history; replacing them all at once loses entry identity.",
      suggestedAction:
        "Initialise the container with [] or {} and add entries one at a time (append or replace one key).",
    },
  },
  A1: {
    code: "base-shifted",
    severity: "advisory",
    title: "A later relative change now starts from a different base",
    explanation: {
      whatHappened: "This change of the past alters the value that a later increment or append builds on.",
      whyItMatters: "The later result changes too, which may not match what the story says happened then.",
      suggestedAction: "Check the later patch and its outcome; edit it if the story needs the old result.",
    },
  },
  A2: {
    code: "masked",
    severity: "advisory",
    title: "A later change overwrites this one",
    explanation: {
      whatHappened: "A later replace or remove on an overlapping path overwrites the value written here.",
      whyItMatters: "This change is visible only until that later moment.",
      suggestedAction: "Confirm that is intended, or edit the later patch.",
    },
  },
};

/** Build a full issue from its catalog entry and the instance data. */
export function makeIssue(
  label: IssueLabel,
  data: {
    subjectId: string;
    attr: string;
    message: string;
    sliceId?: string;
    patchId?: string;
    instant?: number;
    op?: PatchOp;
  },
): Issue {
  const c = ISSUE_CATALOG[label];
  const issue: Issue = {
    code: c.code,
    label,
    severity: c.severity,
    subjectId: data.subjectId,
    attr: data.attr,
    title: c.title,
    message: data.message,
    explanation: c.explanation,
  };
  if (data.sliceId !== undefined) issue.sliceId = data.sliceId;
  if (data.patchId !== undefined) issue.patchId = data.patchId;
  if (data.instant !== undefined) issue.instant = data.instant;
  if (data.op !== undefined) issue.op = data.op;
  return issue;
}

/** Identity of an issue across recomputations. */
export function issueKey(i: Issue): string {
  return [i.label, i.subjectId, i.patchId ?? i.sliceId ?? "", i.attr, i.message].join("\u0000");
}
