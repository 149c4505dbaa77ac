import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from './index.ts';

const dir = new URL('.', import.meta.url);
const modules = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts');
// Modules published as a subpath of their own (package.json "exports", e.g. ./sweep-dom): they load
// a heavy dependency, so the index must not pull them into everything that imports the package.
const exportsMap = JSON.parse(readFileSync(new URL('../package.json', dir), 'utf8')).exports as Record<string, { development: string }>;
const subpaths = Object.entries(exportsMap)
  .filter(([key]) => key !== '.')
  .map(([, target]) => target.development.replace(/^\.\/src\//, ''));

describe('the public surface', () => {
  it('index.ts re-exports every module of the package (one concept per file, named for its export), except its own subpaths', () => {
    const index = readFileSync(new URL('index.ts', dir), 'utf8');
    expect(subpaths).toContain('sweep-dom.ts');
    expect(modules.filter((m) => !subpaths.includes(m) && !index.includes(`'./${m}'`))).toEqual([]);
    expect(subpaths.filter((m) => index.includes(`'./${m}'`))).toEqual([]);
  });

  it('each module exports the camelCase/PascalCase name of its file', async () => {
    const exported = new Set(Object.keys(api));
    for (const m of subpaths) for (const name of Object.keys(await import(`./${m}`))) exported.add(name);
    const typeOnly = ['component-schema.ts'];
    for (const m of modules.filter((m) => !typeOnly.includes(m))) {
      const stem = m.replace(/\.ts$/, '');
      const camel = stem.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      const candidates = [camel, camel[0]?.toUpperCase() + camel.slice(1), stem.toUpperCase().replaceAll('-', '_')];
      const text = readFileSync(new URL(m, dir), 'utf8');
      expect(
        candidates.some((c) => exported.has(c) || text.includes(`export interface ${c}`) || text.includes(`export type ${c}`)),
        `${m} exports ${candidates.join(' | ')}`,
      ).toBe(true);
    }
  });
});
