import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE } from '@bvl/build-issue';
import { describe, expect, it } from 'vitest';
import { RULES } from './rules/index.ts';

const dir = join(import.meta.dirname, 'rules');
const files = readdirSync(dir);

describe('the rule set', () => {
  it('has one file and one test file per rule, named after the rule', () => {
    for (const r of RULES) {
      expect(files).toContain(`${r.meta.name}.ts`);
      expect(files).toContain(`${r.meta.name}.test.ts`);
    }
  });
  it('registers every rule file in the index', () => {
    const ruleFiles = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts').map((f) => f.slice(0, -3));
    expect(ruleFiles.sort()).toEqual(RULES.map((r) => r.meta.name).sort());
  });
  it('emits only graph-layer catalogue codes, with docs', () => {
    for (const r of RULES) {
      expect(r.meta.docs.length).toBeGreaterThan(10);
      for (const c of r.meta.codes) expect(CATALOGUE[c].layer).toBe('graph');
    }
  });
  it('covers every graph code of the catalogue (invalid/duplicate come from the graph builder)', () => {
    const emitted = new Set([...RULES.flatMap((r) => r.meta.codes), 'invalid_artifact', 'duplicate_artifact']);
    const graphCodes = Object.entries(CATALOGUE)
      .filter(([, e]) => e.layer === 'graph')
      .map(([c]) => c);
    expect(graphCodes.filter((c) => !emitted.has(c))).toEqual([]);
  });
});
