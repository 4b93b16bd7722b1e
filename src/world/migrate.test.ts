import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { FIXTURE_SCHEMA } from "../../test/world/fixture.js";
import { parseSchema } from "./schema.js";
import { World } from "./world.js";

// The tables as the first version of world.sqlite made them (one state and one checkpoint row per subject).
const OLD_DDL = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS subjects(id TEXT PRIMARY KEY, type TEXT NOT NULL, name TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS subjects_type ON subjects(type, id);
CREATE TABLE IF NOT EXISTS slices(
  id TEXT PRIMARY KEY, instant INTEGER NOT NULL UNIQUE,
  title TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT 'event');
CREATE TABLE IF NOT EXISTS patches(
  id TEXT PRIMARY KEY, slice_id TEXT NOT NULL, subject_id TEXT NOT NULL, instant INTEGER NOT NULL,
  seq INTEGER NOT NULL, path TEXT NOT NULL, op TEXT NOT NULL, value TEXT, summary TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS patches_slice ON patches(slice_id, seq);
CREATE INDEX IF NOT EXISTS patches_subject ON patches(subject_id, instant, seq);

CREATE TABLE IF NOT EXISTS state_latest(subject_id TEXT PRIMARY KEY, state TEXT NOT NULL, last_instant INTEGER);
CREATE TABLE IF NOT EXISTS checkpoints(subject_id TEXT NOT NULL, instant INTEGER NOT NULL, state TEXT NOT NULL,
  PRIMARY KEY(subject_id, instant)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS issues(id INTEGER PRIMARY KEY, subject_id TEXT NOT NULL, slice_id TEXT, patch_id TEXT,
  instant INTEGER, label TEXT NOT NULL, attr TEXT NOT NULL, op TEXT, message TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS issues_subject ON issues(subject_id, instant);
CREATE INDEX IF NOT EXISTS issues_slice ON issues(slice_id);
CREATE TABLE IF NOT EXISTS refs(id INTEGER PRIMARY KEY, subject_id TEXT NOT NULL, attr TEXT NOT NULL, target TEXT NOT NULL,
  from_instant INTEGER NOT NULL, to_instant INTEGER);
CREATE INDEX IF NOT EXISTS refs_target ON refs(target, to_instant);
CREATE INDEX IF NOT EXISTS refs_subject ON refs(subject_id, to_instant);
CREATE TABLE IF NOT EXISTS text_bodies(id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE, vector BLOB, model TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS text_fts USING fts5(body, content='text_bodies', content_rowid='id', tokenize='trigram');
CREATE TABLE IF NOT EXISTS texts(id INTEGER PRIMARY KEY, subject_id TEXT NOT NULL, top TEXT NOT NULL, attr TEXT NOT NULL,
  body_id INTEGER NOT NULL, from_instant INTEGER NOT NULL, to_instant INTEGER);
CREATE INDEX IF NOT EXISTS texts_subject ON texts(subject_id, to_instant);
CREATE INDEX IF NOT EXISTS texts_body ON texts(body_id);
`;

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("opens a world.sqlite of the first version: the log is kept, derived data re-derived, stored vectors kept", () => {
  dir = mkdtempSync(join(tmpdir(), "nb-world-migrate-"));
  const file = join(dir, "world.sqlite");
  const schemaPath = join(dir, "schema.yaml");
  writeFileSync(schemaPath, FIXTURE_SCHEMA);
  const old = new Database(file);
  old.exec(OLD_DDL);
  // The schema was already folded in, so nothing but the migration would re-derive.
  old
    .prepare("INSERT INTO meta(key, value) VALUES ('schema', ?)")
    .run(parseSchema(FIXTURE_SCHEMA).fingerprint);
  old.exec(`
    INSERT INTO subjects VALUES ('hero', 'character', 'Aya'), ('town', 'location', 'Port');
    INSERT INTO slices VALUES ('s1', 1, 'Start', '', 'event'), ('s2', 2, 'Storm', '', 'event');
    INSERT INTO patches VALUES
      ('p1', 's1', 'hero', 1, 0, '/hp', 'replace', '100', NULL),
      ('p2', 's1', 'hero', 1, 1, '/events', 'replace', '[]', NULL),
      ('p3', 's1', 'town', 1, 2, '/name', 'replace', '"Port"', NULL),
      ('p4', 's2', 'hero', 2, 0, '/events', 'append', '"the storm broke the harbor wall"', NULL),
      ('p5', 's2', 'hero', 2, 1, '/location', 'replace', '"subject://town"', NULL),
      ('p6', 's2', 'hero', 2, 2, '/hp', 'increment', '-30', NULL);
    INSERT INTO state_latest VALUES ('hero', '{"hp":1}', 2);
    INSERT INTO text_bodies(id, body, vector, model) VALUES (7, 'the storm broke the harbor wall', x'0000803f', 'm1');
    INSERT INTO text_fts(rowid, body) VALUES (7, 'the storm broke the harbor wall');
    INSERT INTO texts VALUES (1, 'hero', 'events', '/events/9', 7, 2, NULL);
  `);
  old.close();

  const w = new World({ dbPath: file, schemaPath });
  expect(w.subject.get("hero")).toMatchObject({
    hp: 70,
    events: ["the storm broke the harbor wall"],
    location: "subject://town",
  });
  expect(w.subject.get("hero", { at: 1 })).toMatchObject({ hp: 100, events: [] });
  expect(w.subject.findRefs("town")).toEqual([{ subjectId: "hero", attr: "/location" }]);
  expect(w.search.text("harbor").map((h) => h.attr)).toEqual(["/events/0"]);
  expect(w.search.text("harb").map((h) => h.attr)).toEqual(["/events/0"]);
  expect(
    w.db.prepare("SELECT model FROM text_bodies WHERE body = ?").get("the storm broke the harbor wall"),
  ).toEqual({
    model: "m1",
  });
  w.slice.write({ time: 3, patches: [{ subjectId: "hero", path: "/hp", op: "increment", value: -5 }] });
  w.close();
  const again = new World({ dbPath: file, schemaPath });
  expect(again.subject.get("hero")?.hp).toBe(65);
  expect(again.slice.list().map((s) => s.instant)).toEqual([1, 2, 3]);
  again.close();
});
