import Database from "better-sqlite3";
const db = new Database("/tmp/nb/pw/ws/.nbook/agent.sqlite", { readonly: true });
let t0 = performance.now();
const rows = db.prepare("SELECT id, parent_id, kind, data, created_at FROM entries WHERE seg = 1 AND id <= 1e9 ORDER BY id").raw(true).all();
let t1 = performance.now();
let n = 0; for (const r of rows) n += JSON.parse(r[3]) ? 1 : 0;
let t2 = performance.now();
console.log(rows.length, "sql", (t1 - t0).toFixed(1), "parse", (t2 - t1).toFixed(1));
