import { type FSWatcher, watch } from "node:fs";

/**
 * The folders of a work tree watched for changes (inotify, through fs.watch on each folder), so
 * that a scan re-reads only the folders something happened in. An accelerator only: a watch
 * that fails (no watches left, a folder gone) makes the next scan a whole one, and the scanner
 * looks at a write's own targets directly whatever the watch says.
 */
export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Folders with an event since the last take; null: anything may have changed. */
  private touched: Set<string> | null = null;
  private failed = false;

  /** False once watching failed for good (then every scan is a whole one). */
  get usable(): boolean {
    return !this.failed;
  }

  /** Watch the folder `rel` (at `abs`) from now on, replacing any watch of it. */
  add(rel: string, abs: string): void {
    if (this.failed) return;
    this.watchers.get(rel)?.close();
    try {
      const w = watch(abs, { persistent: false }, () => this.touched?.add(rel));
      w.on("error", () => this.lost(rel));
      this.watchers.set(rel, w);
    } catch {
      // Out of inotify watches, or the folder went meanwhile: scans stay whole ones.
      this.fail();
    }
  }

  /** Stop watching the folder `rel` and every folder under it. */
  removeUnder(rel: string): void {
    for (const [p, w] of this.watchers)
      if (rel === "" || p === rel || p.startsWith(`${rel}/`)) {
        w.close();
        this.watchers.delete(p);
      }
  }

  /**
   * The folders touched since the last take (null: scan everything), starting a new period.
   * Waits for two turns of the event loop first, so events of edits already made are delivered.
   */
  async take(): Promise<Set<string> | null> {
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const out = this.failed ? null : this.touched;
    this.touched = new Set();
    return out;
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private lost(rel: string): void {
    this.watchers.get(rel)?.close();
    this.watchers.delete(rel);
    this.touched = null;
  }

  private fail(): void {
    this.failed = true;
    this.close();
  }
}
