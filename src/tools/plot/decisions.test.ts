import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plotFixture } from "../../../test/plot/tool-fixture.js";
import { plotDb } from "../../plot/db.js";

let f: ReturnType<typeof plotFixture>;
beforeEach(() => {
  f = plotFixture();
});
afterEach(() => f.cleanup());

const create = async (name: string, extra: Record<string, unknown> = {}) =>
  await f.create("save_story_decision", {
    name,
    title: name,
    question: "Who betrays whom?",
    options: [{ option: "Liya" }, { option: "Kai", note: "darker" }],
    ...extra,
  });
const fail = (input: Record<string, unknown>) => f.fail("save_story_decision", input);
/** The smallest valid create; tests add the one field they check. */
const draft = { action: "create", name: "d", title: "D", question: "q" };

describe("decisions", () => {
  it("sign_off needs conclusion, reason and risk; builds rejected alternatives from the chosen option", async () => {
    const id = await create("d-betrayal");
    const e = await fail({ action: "sign_off", decisionId: id, conclusion: "Liya", reason: "arc" });
    expect(e.code).toBe("invalid_input");
    expect(e.fields).toContainEqual({ pointer: "/risk", message: "required for action sign_off" });
    const d = await f.ok("save_story_decision", {
      action: "sign_off",
      decisionId: id,
      conclusion: "Liya betrays",
      reason: "pays off her arc",
      risk: "readers may see it coming",
      chosenOption: "Liya",
    });
    expect(d.status).toBe("decided");
    expect(d.rejectedAlternatives).toEqual([{ option: "Kai", whyRejected: null }]);
  });

  it("without chosenOption rejects every option; a later update of a decided decision keeps the list", async () => {
    const id = await create("d-new-plan");
    const d = await f.ok("save_story_decision", {
      action: "sign_off",
      decisionId: id,
      conclusion: "a third way",
      reason: "r",
      risk: "k",
    });
    expect(d.rejectedAlternatives).toEqual([
      { option: "Liya", whyRejected: null },
      { option: "Kai", whyRejected: null },
    ]);
    const updated = await f.ok("save_story_decision", {
      action: "update",
      decisionId: id,
      options: [{ option: "Liya" }, { option: "Kai" }, { option: "Mara" }],
      risk: "readers may feel cheated",
    });
    expect(updated.risk).toBe("readers may feel cheated");
    expect(updated.rejectedAlternatives).toEqual(d.rejectedAlternatives);
    const open = await create("d-open");
    const early = await fail({ action: "update", decisionId: open, conclusion: "x" });
    expect(early.code).toBe("conflict");
    expect(early.fields?.[0].pointer).toBe("/conclusion");
  });

  it("refuses a chosen option outside the options, and chosenOption with rejectedAlternatives, writing nothing", async () => {
    const id = await create("d-x");
    const base = { action: "sign_off", decisionId: id, conclusion: "c", reason: "r", risk: "k" };
    expect((await fail({ ...base, chosenOption: "Nobody" })).fields?.[0].pointer).toBe("/chosenOption");
    const both = await fail({ ...base, chosenOption: "Liya", rejectedAlternatives: [{ option: "Kai" }] });
    expect(both.code).toBe("invalid_input");
    expect((await f.ok("get_story_decision", { decisionId: id })).status).toBe("open");
  });

  it("refuses duplicate options after trimming, and decided-only fields on create", async () => {
    const dup = await fail({ ...draft, options: [{ option: "A" }, { option: " A " }] });
    expect(dup.fields?.[0].pointer).toBe("/options/1/option");
    const early = await fail({ ...draft, risk: "x" });
    expect(early.fields).toContainEqual({ pointer: "/risk", message: "not accepted by action create" });
  });

  it("checks anchors: content paths must stay inside the project, ids must exist", async () => {
    for (const path of ["../../etc", "/abs", "C:\\x", "promise://3", "a/../../b"]) {
      const e = await fail({ ...draft, anchor: { kind: "content", path } });
      expect(e.code, path).toBe("invalid_input");
    }
    const missing = await fail({ ...draft, anchor: { kind: "chapter", id: 9 } });
    expect(missing.code).toBe("not_found");
    const ok = await f.ok("save_story_decision", {
      ...draft,
      anchor: { kind: "content", path: "./lorebook/liya.md" },
    });
    expect(ok.anchor).toEqual({ kind: "content", id: null, path: "lorebook/liya.md" });
  });

  it("validates serves/dependsOn: unknown schemes and missing targets are named", async () => {
    const banana = await fail({ ...draft, serves: ["banana://1"] });
    expect(banana.code).toBe("invalid_input");
    expect(banana.fields?.[0].pointer).toBe("/serves/0");
    const missing = await fail({ ...draft, dependsOn: ["lorebook/a.md", "promise://99"] });
    expect(missing.code).toBe("not_found");
    expect(missing.fields?.[0].pointer).toBe("/dependsOn/1");
    const p = await f.ok("save_story_promise", { action: "create", name: "p", title: "P" });
    const d = await f.ok("save_story_decision", { ...draft, serves: [`promise://${p.id}`, "lorebook/a.md"] });
    expect(d.serves).toEqual([`promise://${p.id}`, "lorebook/a.md"]);
  });

  it("void needs a reason in the same call; supersede needs a decided replacement and not itself", async () => {
    const a = await create("d-a");
    expect((await fail({ action: "void", decisionId: a })).fields).toContainEqual({
      pointer: "/voidReason",
      message: "required for action void",
    });
    expect((await fail({ action: "supersede", decisionId: a, supersededById: a })).fields?.[0].pointer).toBe(
      "/supersededById",
    );
    const b = await create("d-b");
    expect((await fail({ action: "supersede", decisionId: a, supersededById: b })).message).toMatch(
      /decided/,
    );
    await f.ok("save_story_decision", {
      action: "sign_off",
      decisionId: b,
      conclusion: "c",
      reason: "r",
      risk: "k",
    });
    const sup = await f.ok("save_story_decision", { action: "supersede", decisionId: a, supersededById: b });
    expect(sup).toMatchObject({ status: "superseded", supersededById: b });
    const voided = await f.ok("save_story_decision", {
      action: "void",
      decisionId: b,
      voidReason: "plot changed",
    });
    expect(voided).toMatchObject({ status: "voided", voidReason: "plot changed" });
  });

  it("reopen clears the outcome; signing off again keeps earlier whyRejected texts", async () => {
    const id = await create("d");
    await f.ok("save_story_decision", {
      action: "sign_off",
      decisionId: id,
      conclusion: "Liya",
      reason: "r",
      risk: "k",
      rejectedAlternatives: [{ option: "Kai", whyRejected: "too dark" }],
    });
    const reopened = await f.ok("save_story_decision", { action: "reopen", decisionId: id });
    expect(reopened).toMatchObject({ status: "open", conclusion: null, reason: null, risk: null });
    const again = await f.ok("save_story_decision", {
      action: "sign_off",
      decisionId: id,
      conclusion: "Liya",
      reason: "r",
      risk: "k",
      chosenOption: "Liya",
    });
    expect(again.rejectedAlternatives).toEqual([{ option: "Kai", whyRejected: "too dark" }]);
  });

  it("reads an anchor whose target was deleted as story", async () => {
    const t = await f.ok("save_story_thread", { action: "create", name: "t", title: "T" });
    const id = await create("d", { anchor: { kind: "thread", id: t.id } });
    plotDb(f.project).prepare("DELETE FROM story_thread WHERE id = ?").run(t.id);
    expect((await f.ok("get_story_decision", { decisionId: id })).anchor).toEqual({
      kind: "story",
      id: null,
      path: null,
    });
  });

  it("lists open decisions first, with status/chapter filters and paging", async () => {
    const ch = await f.ok("save_story_chapter", { action: "create", name: "c", title: "C" });
    const a = await create("a");
    const b = await create("b", { deadlineChapterId: ch.id });
    await f.ok("save_story_decision", {
      action: "sign_off",
      decisionId: a,
      conclusion: "c",
      reason: "r",
      risk: "k",
    });
    const c = await create("c", { anchor: { kind: "chapter", id: ch.id } });
    expect((await f.ok("get_story_decision", {})).rows.map((r: { id: number }) => r.id)).toEqual([b, c, a]);
    expect(
      (await f.ok("get_story_decision", { chapterId: ch.id })).rows.map((r: { id: number }) => r.id),
    ).toEqual([b, c]);
    expect((await f.ok("get_story_decision", { status: "decided" })).total).toBe(1);
    const p1 = await f.ok("get_story_decision", { limit: 1 });
    const p2 = await f.ok("get_story_decision", { limit: 1, cursor: p1.nextCursor });
    expect(p2.rows[0].id).toBe(c);
    const bad = await f.call("get_story_decision", { decisionId: a, status: "open" });
    expect(bad.ok ? null : bad.error.fields?.[0].pointer).toBe("/status");
  });
});
