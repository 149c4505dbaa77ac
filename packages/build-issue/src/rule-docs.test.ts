import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from './catalogue.ts';
import { ruleHelpText, rulesDocument } from './format-rule-help.ts';
import { RULE_DOCS, ruleDoc } from './rule-docs.ts';

describe('rule docs', () => {
  it.each(Object.keys(CATALOGUE))('%s has what it means, why it breaks the app, an example and a fix', (code) => {
    const doc = ruleDoc(code);
    expect(doc).toBeDefined();
    for (const part of ['meaning', 'why', 'example', 'fix'] as const) expect(doc![part].trim().length).toBeGreaterThan(10);
  });

  it('documents no code outside the catalogue', () => {
    expect(Object.keys(RULE_DOCS).sort()).toEqual(Object.keys(CATALOGUE).sort());
    expect(ruleDoc('no_such_code')).toBeUndefined();
  });

  it('explains a code in plain text with its layer, severity and docs link', () => {
    const text = ruleHelpText('unknown_measure');
    expect(text.split('\n')[0]).toBe('unknown_measure (graph, default severity error)');
    expect(text).toContain('How to fix:');
    expect(text).toContain('docs/rules.md#unknown_measure');
  });

  it('docs/rules.md is generated from these docs and current (npm run docs -w @bvl/build-issue)', () => {
    expect(readFileSync(join(import.meta.dirname, '../../../docs/rules.md'), 'utf8')).toBe(rulesDocument());
  });
});
