import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ServeFixture, serveFixture } from "../serve/fixture.js";

let fx: ServeFixture;
beforeEach(async () => {
  fx = await serveFixture();
});
afterEach(async () => {
  await fx.close();
});

const CH = "manuscript/ch-03/index.md";
const V1 = "# Three\n\nThe bell.\n\nThe rope.\n";

interface Listed {
  changes: { id: string; actor: string; tool: string | null; profile: string | null; targets: string[] }[];
}

describe("history routes", () => {
  it("lists the workbench's save and an agent's edit, shows the diff, blames, and reverts", async () => {
    const save = await fx.api("PUT", "/api/projects/novel/files/write", {
      path: CH,
      content: V1,
      baseVersion: null,
    });
    expect(save.status).toBe(200);
    const edit = await fx.bed.call(
      "edit",
      { path: CH, edits: [{ oldText: "The rope.", newText: "The frayed rope." }] },
      { profile: "leader.default" },
    );
    expect(edit.ok).toBe(true);
    const list = (await (await fx.api("GET", "/api/projects/novel/history")).json()) as Listed;
    expect(list.changes[0]).toMatchObject({
      actor: "agent",
      profile: "leader.default",
      tool: "edit",
      targets: [CH],
    });
    expect(list.changes[1]).toMatchObject({ actor: "user", tool: "write", targets: [CH] });
    const agent = list.changes[0].id;

    const shown = (await (await fx.api("GET", `/api/projects/novel/history/changes/${agent}`)).json()) as {
      diff: string;
    };
    expect(shown.diff).toContain("+The frayed rope.");
    const blame = (await (await fx.api("GET", `/api/projects/novel/history/blame?path=${CH}`)).json()) as {
      lines: { author: { actor: string } }[];
      words: { user: number; agents: number };
    };
    expect(blame.lines.map((l) => l.author.actor)).toEqual(["user", "user", "user", "user", "agent"]);
    expect(blame.words).toMatchObject({ user: 3, agents: 3 });

    const byPath = (await (
      await fx.api("GET", `/api/projects/novel/history?path=${CH}&limit=1`)
    ).json()) as Listed;
    expect(byPath.changes.map((c) => c.id)).toEqual([agent]);

    const rev = await fx.api("POST", "/api/projects/novel/history/revert", { ids: [agent] });
    expect(rev.status).toBe(200);
    expect(((await rev.json()) as { change: { actor: string } }).change.actor).toBe("revert");
    expect(readFileSync(join(fx.bed.project.root, CH), "utf8")).toBe(V1);

    const stats = (await (await fx.api("GET", "/api/projects/novel/history/stats")).json()) as {
      changes: number;
    };
    expect(stats.changes).toBe(4);
  });

  it("answers 409 conflict with both versions and writes nothing; 404 for an unknown id; 400 for a bad time", async () => {
    await fx.api("PUT", "/api/projects/novel/files/write", { path: CH, content: V1, baseVersion: null });
    await fx.bed.call(
      "edit",
      { path: CH, edits: [{ oldText: "The rope.", newText: "The frayed rope." }] },
      { profile: "leader.default" },
    );
    const agent = ((await (await fx.api("GET", "/api/projects/novel/history")).json()) as Listed).changes[0]
      .id;
    const mine = V1.replace("The rope.", "The wet rope.");
    writeFileSync(join(fx.bed.project.root, CH), mine);
    const res = await fx.api("POST", "/api/projects/novel/history/revert", { ids: [agent] });
    expect(res.status).toBe(409);
    const body = (await res.json()) as {
      error: { code: string; details: { conflicts: { path: string; current: string; before: string }[] } };
    };
    expect(body.error.code).toBe("conflict");
    expect(body.error.details.conflicts[0]).toMatchObject({ path: CH, current: mine, before: V1 });
    expect(readFileSync(join(fx.bed.project.root, CH), "utf8")).toBe(mine);

    const unknown = await fx.api("GET", "/api/projects/novel/history/changes/c0000000000zzzzzz");
    expect(unknown.status).toBe(404);
    const bad = await fx.api("GET", "/api/projects/novel/history?since=soon");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_input");
  });
});
