import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from './index.ts';

const dir = new URL('.', import.meta.url);
const modules = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts');

describe('the public surface', () => {
  it('index.ts re-exports every module of the package (one concept per file, named for its export)', () => {
    const index = readFileSync(new URL('index.ts', dir), 'utf8');
    expect(modules.filter((m) => !index.includes(`'./${m}'`))).toEqual([]);
  });

  it('each module exports the camelCase/PascalCase name of its file', () => {
    const exported = new Set(Object.keys(api));
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
