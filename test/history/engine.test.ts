import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { History } from "../../src/history/history.js";
import { revertChanges } from "../../src/history/revert.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
afterEach(() => bed?.cleanup());

const CH = "manuscript/ch-03/index.md";
const v1 = "Para one.\n\nPara two.\n\nPara three.\n";

describe("file history engine", () => {
  it("records a write and reverts it to the exact previous bytes", async () => {
    bed = makeTestBed();
    expect((await bed.call("write", { path: CH, content: v1 })).ok).toBe(true);
    const r = await bed.call("write", { path: CH, content: "Rewritten.\n" }, { profile: "leader.default" });
    expect(r).toMatchObject({ ok: true });
    const h = History.of(bed.project);
    const list = h.index.list();
    expect(list[0]).toMatchObject({
      actor: "agent",
      profile: "leader.default",
      tool: "write",
      targets: [CH],
    });
    expect(list[1]).toMatchObject({ actor: "user", tool: "write" });
    const rev = await revertChanges(h, [list[0]], {});
    expect(rev).toMatchObject({ actor: "revert", reverts: [list[0].id] });
    expect(readFileSync(join(bed.project.root, CH), "utf8")).toBe(v1);
  });

  it("records an outside edit first, and it survives the agent change's revert", async () => {
    bed = makeTestBed();
    await bed.call("write", { path: CH, content: v1 });
    writeFileSync(join(bed.project.root, CH), v1.replace("Para one.", "Para one, by hand."));
    await bed.call(
      "edit",
      { path: CH, edits: [{ oldText: "Para three.", newText: "Para 3." }] },
      { profile: "leader.default" },
    );
    const h = History.of(bed.project);
    const [agent, outside] = h.index.list();
    expect(outside).toMatchObject({ actor: "outside", targets: [CH] });
    await revertChanges(h, [agent], {});
    expect(readFileSync(join(bed.project.root, CH), "utf8")).toBe(
      v1.replace("Para one.", "Para one, by hand."),
    );
  });
});
