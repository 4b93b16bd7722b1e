import { ProjectSearch } from "../search/project-search.js";
import type { SearchRequest, SearchResult } from "../search/schema.js";
import type { Project } from "../workspace/project.js";
import { FileTreeCache } from "./file-tree.js";
import type { FileNode } from "./responses.js";

/**
 * How long a search trusts the index after checking every file's identity: writes through nbook
 * update it at once (changed); an edit made outside nbook is seen by the first search after this.
 */
const RESYNC_MS = 2000;

/** One changed file as a change event carries it: its node now, or null when it is gone. */
export interface ChangedNode {
  path: string;
  node: FileNode | null;
}

/** What serve keeps of one project's files: the tree's word counts and the search index. */
export class ProjectFiles {
  readonly tree: FileTreeCache;
  private index: ProjectSearch | null = null;
  private checkedAt = 0;
  /** Files changed through nbook that the search index has not taken up yet. */
  private readonly unindexed = new Set<string>();
  private flushing: NodeJS.Immediate | null = null;

  constructor(private readonly project: Project) {
    this.tree = new FileTreeCache(project);
  }

  /**
   * The nodes of files just changed (for the change event). The search index takes them up just
   * after, off the write's answer, and before any search that comes first.
   */
  changed(paths: readonly string[]): ChangedNode[] {
    for (const p of paths) this.unindexed.add(p);
    this.flushing ??= setImmediate(() => this.indexChanges());
    this.tree.changed(paths);
    return paths.map((path) => ({ path, node: this.tree.fileNode(path) }));
  }

  private indexChanges(): void {
    this.flushing = null;
    if (!this.unindexed.size) return;
    const paths = [...this.unindexed];
    this.unindexed.clear();
    try {
      this.search$().update(paths);
    } catch {
      // The next search checks every file instead (and says what fails).
      this.checkedAt = 0;
    }
  }

  /** Search the project's index, checking the files on disk first when the last check is not recent. */
  search(req: SearchRequest): SearchResult {
    this.indexChanges();
    const index = this.search$();
    if (Date.now() - this.checkedAt > RESYNC_MS) {
      index.sync();
      this.checkedAt = Date.now();
    }
    return index.search(req);
  }

  close(): void {
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = null;
    this.tree.close();
    this.index?.close();
    this.index = null;
  }

  private search$(): ProjectSearch {
    this.index ??= new ProjectSearch(this.project);
    return this.index;
  }
}
