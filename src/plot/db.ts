import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { NbError } from "../core/errors.js";
import type { Project } from "../workspace/project.js";
import { PLOT_MIGRATIONS } from "./migrations.js";

/** A better-sqlite3 connection to a project's `project.sqlite`. */
export type PlotDb = Database.Database;

/** The schema version this build writes; recorded in `PRAGMA user_version`. */
export const PLOT_SCHEMA_VERSION = PLOT_MIGRATIONS.length;

/** Settings every connection to project.sqlite needs, whoever opens it. */
export function configureConnection(db: PlotDb): void {
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  db.pragma("synchronous = NORMAL");
}

/**
 * Bring the schema up to PLOT_SCHEMA_VERSION, one migration per transaction. A file written by a
 * newer NeuroBook is refused rather than guessed at.
 */
export function migratePlotDb(db: PlotDb): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > PLOT_SCHEMA_VERSION) {
    throw new NbError(
      "config_error",
      `project.sqlite has schema version ${current}, newer than this NeuroBook supports (${PLOT_SCHEMA_VERSION}); upgrade NeuroBook to open it`,
    );
  }
  for (let v = current; v < PLOT_SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(PLOT_MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/** Open (creating if needed) a plot database file, migrate it, and make sure the story row exists. */
export function openPlotDb(file: string, story: { title: string; summary: string }): PlotDb {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    configureConnection(db);
    migratePlotDb(db);
    db.prepare("INSERT OR IGNORE INTO story (id, title, summary) VALUES (1, ?, ?)").run(
      story.title,
      story.summary,
    );
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** The project's long-lived plot connection (opened and migrated on first use, closed with the project). */
export function plotDb(project: Project): PlotDb {
  return project.resource("plot-db", () => {
    const meta = project.meta();
    return openPlotDb(project.dbPath("project"), { title: meta.title, summary: meta.summary });
  });
}
