import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCycles, importGraph, importsOf } from './check-import-cycles.mjs';

const script = join(import.meta.dirname, 'check-import-cycles.mjs');
const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

/** A throwaway repository: files by path, each with its text. */
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'bvl-cycles-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('importsOf', () => {
  const cases: Array<[string, string, string[]]> = [
    ['a value import', `import { a } from './a.ts';`, ['./a.ts']],
    ['a type import', `import type { A } from './a.ts';`, ['./a.ts']],
    ['a multi-line import', `import {\n  a,\n  type B,\n} from './a.ts';`, ['./a.ts']],
    ['a re-export', `export { a } from './a.ts';\nexport * from './b.ts';`, ['./a.ts', './b.ts']],
    ['a side-effect import', `import './setup.ts';`, ['./setup.ts']],
    ['a lazy import', `const m = await import('./lazy.ts');`, ['./lazy.ts']],
    ['an import type in a type position', `let d: import('node:fs').Dirent;`, ['node:fs']],
    ['a package', `import { z } from 'zod';\nimport { x } from '@bvl/metadata';`, ['zod', '@bvl/metadata']],
    ['each once, in order', `import { b } from './b.ts';\nimport type { A } from './a.ts';\nimport { a } from './a.ts';`, ['./b.ts', './a.ts']],
    ['not in a comment', `// import { a } from './a.ts';\n/**\n * import { b } from './b.ts';\n */\nconst x = 1;`, []],
    ['not a glob or a URL in a string', `const g = ['src/**/*.ts', 'http://x/y']; // a comment\nimport { c } from './c.ts';`, ['./c.ts']],
    ['not a word that ends in import', `reimport('./a.ts'); const from = 'x';`, []],
  ];
  it.each(cases)('%s', (_name, text, specs) => {
    expect(importsOf(text)).toEqual(specs);
  });
});

describe('findCycles', () => {
  it('finds none in a graph without one (a diamond is not a cycle)', () => {
    expect(findCycles(graph({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [], e: ['outside'] }))).toEqual([]);
  });

  it('finds a two-module circle, a self-import, and a longer one with its members, sorted', () => {
    const cycles = findCycles(graph({ z: ['y'], y: ['z'], s: ['s'], a: ['b'], b: ['c'], c: ['a', 'd'], d: ['b'] }));
    expect(cycles).toEqual([
      { members: ['a', 'b', 'c', 'd'], cycle: ['a', 'b', 'c', 'a'] },
      { members: ['s'], cycle: ['s', 's'] },
      { members: ['y', 'z'], cycle: ['y', 'z', 'y'] },
    ]);
  });

  it('follows a chain deeper than the call stack', () => {
    const edges: Record<string, string[]> = {};
    for (let i = 0; i < 50_000; i++) edges[`m${i}`] = [`m${i + 1}`];
    edges.m50000 = ['m0'];
    const [only, ...rest] = findCycles(graph(edges));
    expect(rest).toEqual([]);
    expect(only?.members).toHaveLength(50_001);
    expect(only?.cycle).toHaveLength(50_002);
  });
});

describe('the import graph of a repository', () => {
  const files = {
    'packages/p/package.json': JSON.stringify({ name: '@x/p', exports: { '.': { development: './src/index.ts', default: './dist/index.js' } } }),
    'packages/p/src/index.ts': `export { a } from './a.ts';`,
    'packages/p/src/a.ts': `import type { B } from './b.js';\nexport const a = 1;`,
    'packages/p/src/b.ts': `export type B = number;`,
    'packages/p/dist/index.js': `import './index.js';`,
    'apps/q/package.json': JSON.stringify({ name: 'q', exports: './src/main.ts' }),
    'apps/q/src/main.ts': `import { a } from '@x/p';\nconst t = async () => (await import('./table.ts')).x;`,
    'apps/q/src/table.ts': `export const x = 1;`,
  };

  it('resolves relative imports (.js to .ts), workspace packages through their exports, and skips build output', () => {
    expect(Object.fromEntries(importGraph(repo(files)))).toEqual({
      'apps/q/src/main.ts': ['packages/p/src/index.ts', 'apps/q/src/table.ts'],
      'apps/q/src/table.ts': [],
      'packages/p/src/a.ts': ['packages/p/src/b.ts'],
      'packages/p/src/b.ts': [],
      'packages/p/src/index.ts': ['packages/p/src/a.ts'],
    });
  });

  it('run as a script: silent and exit 0 without a cycle; each cycle named and exit 1 with one (a lazy or type import counts)', () => {
    const clean = spawnSync(process.execPath, [script, repo(files)], { encoding: 'utf8' });
    expect([clean.status, clean.stdout, clean.stderr]).toEqual([0, '', '']);
    const circular = repo({
      ...files,
      'apps/q/src/table.ts': `import type { T } from './main.ts';\nexport const x = 1;`,
      'packages/p/src/b.ts': `import { a } from '@x/p';\nexport type B = typeof a;`,
    });
    const found = spawnSync(process.execPath, [script, circular], { encoding: 'utf8' });
    expect(found.status).toBe(1);
    expect(found.stderr.split('\n')).toEqual([
      'import cycle: apps/q/src/main.ts → apps/q/src/table.ts → apps/q/src/main.ts',
      'import cycle: packages/p/src/a.ts → packages/p/src/b.ts → packages/p/src/index.ts → packages/p/src/a.ts',
      '2 import cycles: move what the modules share into a module both import',
      '',
    ]);
  });
});
