#!/usr/bin/env node
// The layering rule of src/: no cycle of value imports between its top-level folders (type-only
// imports erase at build time, so they may point anywhere), and the harness imports nothing from a
// tool group's folder (it knows tools only through the contract; the group folders are those the
// group table src/tools/groups.ts loads, or every folder of tools/ without one). Exits 1 and names
// each broken rule. `--root DIR` checks another tree. Unit tests beside their module (*.test.ts) are
// not part of the layering: they are not built, and a test may stand on any layer to set up what it
// checks.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(name) && !/\.(d|test)\.ts$/.test(name) ? [path] : [];
  });
}

/**
 * The value imports of a file: specifiers of imports and re-exports not marked `type`, and `import()`.
 * `import { type A }` counts as a value import: under verbatimModuleSyntax it stays as `import {}`.
 */
function valueImports(file) {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.importClause?.isTypeOnly) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      if (!node.isTypeOnly) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Tarjan's strongly connected components of `edges`: each one of more than one folder is a cycle. */
function cycles(edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const connect = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) connect(v);
  return components;
}

/** The tool group folders: those the group table loads, or null (every folder of tools/) without one. */
function groupFolders(src) {
  const table = join(src, "tools", "groups.ts");
  if (!existsSync(table)) return null;
  return new Set(
    valueImports(table)
      .filter((spec) => spec.startsWith("./") && spec.split("/").length > 2)
      .map((spec) => spec.split("/")[1]),
  );
}

/** Check the tree at `src`: the number of folders that import another, and each broken rule. */
export function checkLayers(src) {
  const groups = groupFolders(src);
  const edges = new Map(); // folder -> Map(folder -> every "file imports spec")
  const problems = [];
  for (const file of sourceFiles(src)) {
    const from = relative(src, file).split(sep);
    if (from.length < 2) continue;
    for (const spec of valueImports(file)) {
      if (!spec.startsWith(".")) continue;
      const rel = relative(src, resolve(dirname(file), spec));
      if (rel.startsWith("..")) continue;
      const to = rel.split(sep);
      if (to.length < 2) continue;
      const where = `${relative(src, file)} imports ${spec}`;
      if (from[0] === "harness" && to[0] === "tools" && to.length > 2 && (groups?.has(to[1]) ?? true)) {
        problems.push(`src/harness imports a tool group: src/${where}`);
      }
      if (to[0] === from[0]) continue;
      if (!edges.has(from[0])) edges.set(from[0], new Map());
      const out = edges.get(from[0]);
      if (!out.has(to[0])) out.set(to[0], []);
      out.get(to[0]).push(where);
    }
  }
  for (const component of cycles(edges)) {
    const inside = new Set(component);
    const lines = component.flatMap((f) =>
      [...(edges.get(f) ?? [])]
        .filter(([to]) => inside.has(to))
        .map(([to, wheres]) => {
          const more = wheres.length > 1 ? ` (and ${wheres.length - 1} more)` : "";
          return `    ${f} -> ${to}: src/${wheres[0]}${more}`;
        }),
    );
    problems.push(`value-import cycle between src/ folders ${component.join(", ")}:\n${lines.join("\n")}`);
  }
  return { folders: edges.size, problems };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const rootArg = args.indexOf("--root");
  const { folders, problems } = checkLayers(resolve(rootArg >= 0 ? args[rootArg + 1] : "src"));
  if (problems.length) {
    console.error(`check:layers: ${problems.length} problem(s)\n${problems.map((p) => `- ${p}`).join("\n")}`);
    process.exit(1);
  }
  console.log(`check:layers: ${folders} folders, no value-import cycle, the harness imports no tool group`);
}
