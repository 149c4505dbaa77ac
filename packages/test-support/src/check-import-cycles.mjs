// Keeps the repository free of import cycles. Plain JavaScript so that the root `npm test` runs it
// with node before the suites start: `node …/check-import-cycles.mjs` prints each cycle and exits 1.
// Every import counts: `import type`, `export … from`, and `import('…')` (a lazy import is still a
// cycle of modules that know each other), within a package and across the workspace packages.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository root (this file is packages/test-support/src/check-import-cycles.mjs). */
const REPO_ROOT = resolve(import.meta.dirname, '../../..');
/** Folders that hold source (inside each workspace package too); build output and dependencies do not. */
const SKIP_DIRS = new Set(['node_modules', 'dist', '.turbo', '.bvl', 'coverage', 'fixtures']);
const SOURCE = /\.(?:ts|mts|cts|js|mjs|cjs)$/;
const DECLARATION = /\.d\.(?:ts|mts|cts)$/;

// A static import or re-export: `import … from '…'`, `export … from '…'` (statements start a line,
// as the formatter writes them; the clause may span lines but holds no quote or semicolon), and a
// side-effect `import '…'`. A dynamic or type-position `import('…')` anywhere.
const STATIC = /^[ \t]*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"\n]+)['"]/gm;
const BARE = /^[ \t]*import\s*['"]([^'"\n]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;

// Comments that start a line (a JSDoc block, a `//` line): blanked, keeping line breaks, so an
// import mentioned in prose is not an edge. Only at a line's start, so a string holding `//` or `/*`
// (a URL, a glob) is never mistaken for one.
const COMMENT = /^[ \t]*(?:\/\*[\s\S]*?\*\/|\/\/[^\n]*)/gm;

/** The module specifiers a source text imports, in order of appearance, each once. */
export function importsOf(text) {
  const code = text.replace(COMMENT, (c) => c.replace(/[^\n]/g, ' '));
  const found = [];
  for (const re of [STATIC, BARE, DYNAMIC]) for (const m of code.matchAll(re)) found.push([m.index, m[1]]);
  return [...new Set(found.sort((a, b) => a[0] - b[0]).map(([, spec]) => spec))];
}

/**
 * The cycles of a directed graph (`node → the nodes it imports`), one per strongly connected
 * component of two or more nodes (or a node importing itself): its `members` (sorted) and the
 * shortest `cycle` through the first of them, a path that ends where it starts. Sorted by members.
 */
export function findCycles(graph) {
  const nodes = [...graph.keys()].sort();
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  let next = 0;
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the call stack.
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work = [[root, 0]];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const edges = graph.get(node) ?? [];
      if (i < edges.length) {
        frame[1] = i + 1;
        const to = edges[i];
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push([to, 0]);
        } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component.sort());
      }
    }
  }
  return components
    .map((members) => ({ members, cycle: shortestCycle(graph, members[0], new Set(members)) }))
    .sort((a, b) => a.members.join('\n').localeCompare(b.members.join('\n')));
}

/** The shortest path from `start` back to itself inside `within` (breadth first, edges in sorted order). */
function shortestCycle(graph, start, within) {
  const from = new Map();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    const node = queue[q];
    for (const to of [...(graph.get(node) ?? [])].sort()) {
      if (!within.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = from.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!from.has(to)) {
        from.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** The source files of the repository's workspace packages and tools, relative to the root, sorted. */
function sourceFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') && entry.name !== '.ci') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(path);
      } else if (SOURCE.test(entry.name) && !DECLARATION.test(entry.name)) out.push(relative(root, path));
    }
  };
  for (const top of ['packages', 'apps', 'bench', '.ci']) if (existsSync(join(root, top))) walk(join(root, top));
  return out.sort();
}

/** Each workspace package's import specifiers (its name and `exports` subpaths) → the source file they load. */
function workspaceEntries(root) {
  const entries = new Map();
  for (const group of ['packages', 'apps']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const manifest = join(dir, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
      const exports = typeof pkg.exports === 'string' ? { '.': pkg.exports } : (pkg.exports ?? {});
      for (const [sub, target] of Object.entries(exports)) {
        const file = typeof target === 'string' ? target : (target.development ?? target.default);
        if (typeof file === 'string') entries.set(sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`, relative(root, join(dir, name, file)));
      }
    }
  }
  return entries;
}

/** The file a specifier in `from` loads, if it is one of the repository's sources (TypeScript's `.js` → `.ts` too). */
function resolveImport(root, from, spec, files, entries) {
  if (entries.has(spec)) return entries.get(spec);
  if (!spec.startsWith('.')) return undefined;
  const base = relative(root, resolve(root, dirname(from), spec));
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => files.has(c) && statSync(join(root, c)).isFile());
}

/** The repository's import graph: each source file (relative to `root`) → the repository files it imports. */
export function importGraph(root = REPO_ROOT) {
  const files = sourceFiles(root);
  const known = new Set(files);
  const entries = workspaceEntries(root);
  const graph = new Map();
  for (const file of files) {
    const targets = importsOf(readFileSync(join(root, file), 'utf8'))
      .map((spec) => resolveImport(root, file, spec, known, entries))
      .filter((t) => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

// `node check-import-cycles.mjs [root]`: silent with exit 0 when there is no cycle; else one line per
// cycle (a → b → a) and exit 1.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = resolve(process.argv[2] ?? REPO_ROOT);
  const cycles = findCycles(importGraph(root));
  for (const { members, cycle } of cycles)
    console.error(`import cycle: ${cycle.join(' → ')}${members.length > cycle.length - 1 ? ` (${members.length} modules in all: ${members.join(', ')})` : ''}`);
  if (cycles.length > 0) {
    console.error(`${cycles.length} import cycle${cycles.length === 1 ? '' : 's'}: move what the modules share into a module both import`);
    process.exitCode = 1;
  }
}
