import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { NbError } from "../core/errors.js";
import { openPlotDb, PLOT_SCHEMA_VERSION } from "./db.js";
import { PLOT_MIGRATIONS } from "./migrations.js";
import { PLOT_SCHEMA_DOC } from "./schema-doc.js";

const dirs: string[] = [];
function tmpFile(): string {
  const d = mkdtempSync(join(tmpdir(), "nb-plotdb-"));
  dirs.push(d);
  return join(d, ".nbook", "project.sqlite");
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("plot database", () => {
  it("creates the schema, records the version, seeds the story and turns foreign keys on", () => {
    const db = openPlotDb(tmpFile(), { title: "T", summary: "S" });
    expect(db.pragma("user_version", { simple: true })).toBe(PLOT_SCHEMA_VERSION);
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare("SELECT title, summary FROM story").get()).toEqual({ title: "T", summary: "S" });
    db.close();
  });

  it("reopening keeps the story and does not re-run migrations", () => {
    const file = tmpFile();
    openPlotDb(file, { title: "First", summary: "" }).close();
    const db = openPlotDb(file, { title: "Second", summary: "" });
    expect(db.prepare("SELECT title FROM story").get()).toEqual({ title: "First" });
    db.close();
  });

  it("upgrades an older file (version 0) found on disk", () => {
    const file = tmpFile();
    mkdirSync(dirname(file), { recursive: true });
    const raw = new Database(file);
    raw.exec("CREATE TABLE keep_me (x INTEGER)");
    expect(raw.pragma("user_version", { simple: true })).toBe(0);
    raw.close();
    const db = openPlotDb(file, { title: "x", summary: "" });
    expect(db.pragma("user_version", { simple: true })).toBe(PLOT_SCHEMA_VERSION);
    expect(db.prepare("SELECT count(*) AS n FROM story_scene").get()).toEqual({ n: 0 });
    db.close();
  });

  it("upgrades a version 1 file: phases made before they had a status become active", () => {
    const file = tmpFile();
    mkdirSync(dirname(file), { recursive: true });
    const raw = new Database(file);
    raw.exec(PLOT_MIGRATIONS[0]);
    raw.pragma("user_version = 1");
    raw.exec("INSERT INTO story_phase (sort_order, name, title) VALUES (0, 'early', 'Early')");
    raw.close();
    const db = openPlotDb(file, { title: "x", summary: "" });
    expect(db.prepare("SELECT name, status FROM story_phase").all()).toEqual([
      { name: "early", status: "active" },
    ]);
    db.close();
  });

  it("refuses a file written by a newer schema", () => {
    const file = tmpFile();
    openPlotDb(file, { title: "x", summary: "" }).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${PLOT_SCHEMA_VERSION + 1}`);
    raw.close();
    let err: unknown;
    try {
      openPlotDb(file, { title: "x", summary: "" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NbError);
    expect((err as NbError).code).toBe("config_error");
    expect((err as NbError).message).toMatch(/newer/);
  });

  it("documents exactly the tables and columns the schema has", () => {
    const db = openPlotDb(tmpFile(), { title: "x", summary: "" });
    const tables = (
      db
        .prepare(
          "SELECT name FROM sqlite_schema WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    expect(tables).toEqual(Object.keys(PLOT_SCHEMA_DOC).sort());
    for (const t of tables) {
      const cols = (db.pragma(`table_info(${t})`) as { name: string }[]).map((c) => c.name).sort();
      expect(cols, t).toEqual(Object.keys(PLOT_SCHEMA_DOC[t].columns).sort());
    }
    db.close();
  });

  it("cascades scene deletion to beats and subjects", () => {
    const db = openPlotDb(tmpFile(), { title: "x", summary: "" });
    db.exec(`INSERT INTO story_thread (id, sort_order, name, title) VALUES (1, 0, 't', 'T');
      INSERT INTO story_scene (id, thread_id, thread_sort_order, title) VALUES (1, 1, 0, 'S');
      INSERT INTO story_scene_subject VALUES (1, 0, 'a');
      INSERT INTO story_promise (id, name, title) VALUES (1, 'p', 'P');
      INSERT INTO story_promise_beat (promise_id, scene_id, kind) VALUES (1, 1, 'plant');
      DELETE FROM story_thread WHERE id = 1;`);
    expect(db.prepare("SELECT count(*) AS n FROM story_promise_beat").get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT count(*) AS n FROM story_scene_subject").get()).toEqual({ n: 0 });
    db.close();
  });
});
