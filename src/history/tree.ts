import type { ObjectType } from "./objects.js";

/** A file of a tree: its git mode (100644, 100755, 120000 for a symlink) and blob id. */
export interface TreeFile {
  mode: string;
  sha: string;
}

/**
 * A folder of the tree; `sha` is null once something under it changed since it was written.
 * `encoded` keeps its entries as written (in git's order), so a change to one entry of a large
 * folder re-encodes that entry alone; null after an entry came or went.
 */
interface Folder {
  sha: string | null;
  files: Map<string, TreeFile>;
  folders: Map<string, Folder>;
  encoded: { order: string[]; entries: Map<string, Buffer> } | null;
}

function folder(sha: string | null = null): Folder {
  return { sha, files: new Map(), folders: new Map(), encoded: null };
}

/** One entry of a tree object: `<mode> <name>\0` and the 20 bytes of the id. */
function entry(mode: string, name: string, sha: string): Buffer {
  return Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(sha, "hex")]);
}

/**
 * The head commit's tree held in memory, so that a change rewrites only the trees on the paths
 * it touched (O(change), not O(project)): every other folder keeps the id it was read with.
 */
export class HeadTree {
  private constructor(private readonly root: Folder) {}

  static empty(): HeadTree {
    return new HeadTree(folder());
  }

  /**
   * From the output of `git ls-tree -r -t -z --full-tree <commit>`. The root's own id is not in
   * it: the root is encoded again at the first commit (a change always rewrites it anyway).
   */
  static fromListing(listing: string): HeadTree {
    const tree = new HeadTree(folder());
    for (const entry of listing.split("\0")) {
      const tab = entry.indexOf("\t");
      if (tab < 0) continue;
      const [mode, type, sha] = entry.slice(0, tab).split(" ");
      const path = entry.slice(tab + 1);
      const { parent, name } = tree.parentOf(path, true) as { parent: Folder; name: string };
      if (type === "tree") parent.folders.set(name, folder(sha));
      else parent.files.set(name, { mode, sha });
    }
    return tree;
  }

  /** The file at this project-relative path, if the tree has one. */
  get(path: string): TreeFile | undefined {
    const at = this.parentOf(path, false);
    return at?.parent.files.get(at.name);
  }

  /** Put a file at `path`, or remove it (null); folders left empty go too. True when it changed. */
  set(path: string, file: TreeFile | null): boolean {
    const chain: Folder[] = [this.root];
    const parts = path.split("/");
    for (const part of parts.slice(0, -1)) {
      const current = chain[chain.length - 1];
      let next = current.folders.get(part);
      if (!next) {
        if (file === null) return false;
        next = folder();
        current.folders.set(part, next);
        current.encoded = null;
      }
      chain.push(next);
    }
    const name = parts[parts.length - 1];
    const parent = chain[chain.length - 1];
    if (file === null) {
      if (!parent.files.delete(name)) return false;
      parent.encoded = null;
    } else {
      const was = parent.files.get(name);
      if (was && was.mode === file.mode && was.sha === file.sha) return false;
      parent.files.set(name, file);
      if (!was) parent.encoded = null;
      else parent.encoded?.entries.set(name, entry(file.mode, name, file.sha));
    }
    for (const f of chain) f.sha = null;
    for (let i = chain.length - 1; i > 0; i--) {
      if (chain[i].files.size > 0 || chain[i].folders.size > 0) break;
      chain[i - 1].folders.delete(parts[i - 1]);
      chain[i - 1].encoded = null;
    }
    return true;
  }

  /** Every file of the tree with its path. */
  *files(): Generator<[string, TreeFile]> {
    const walk = function* (f: Folder, prefix: string): Generator<[string, TreeFile]> {
      for (const [name, file] of f.files) yield [prefix + name, file];
      for (const [name, sub] of f.folders) yield* walk(sub, `${prefix}${name}/`);
    };
    yield* walk(this.root, "");
  }

  /** Write the trees that changed (through `put`) and return the root tree's id. */
  write(put: (type: ObjectType, data: Buffer) => string): string {
    const writeFolder = (f: Folder): string => {
      if (f.sha !== null) return f.sha;
      if (f.encoded === null) {
        const keyed: { key: Buffer; name: string; bytes: Buffer }[] = [];
        for (const [name, file] of f.files)
          keyed.push({ key: Buffer.from(name), name, bytes: entry(file.mode, name, file.sha) });
        // git orders a folder as if its name ended in "/".
        for (const [name, sub] of f.folders)
          keyed.push({ key: Buffer.from(`${name}/`), name, bytes: entry("40000", name, writeFolder(sub)) });
        keyed.sort((a, b) => Buffer.compare(a.key, b.key));
        f.encoded = {
          order: keyed.map((k) => k.name),
          entries: new Map(keyed.map((k) => [k.name, k.bytes])),
        };
      } else {
        for (const [name, sub] of f.folders)
          if (sub.sha === null) f.encoded.entries.set(name, entry("40000", name, writeFolder(sub)));
      }
      const { order, entries } = f.encoded;
      f.sha = put("tree", Buffer.concat(order.map((name) => entries.get(name) as Buffer)));
      return f.sha;
    };
    return writeFolder(this.root);
  }

  private parentOf(path: string, create: boolean): { parent: Folder; name: string } | null {
    const parts = path.split("/");
    let at = this.root;
    for (const part of parts.slice(0, -1)) {
      let next = at.folders.get(part);
      if (!next) {
        if (!create) return null;
        next = folder();
        at.folders.set(part, next);
      }
      at = next;
    }
    return { parent: at, name: parts[parts.length - 1] };
  }
}
