import { describe, expect, it } from 'vitest';
import type { Blueprint, CaseFile } from './case-file.ts';
import { caseVersion } from './case-version.ts';

const CASE: CaseFile & { blueprint: Blueprint } = {
  name: 'notes',
  prompt: 'Build a notes app with a state per note.',
  tags: ['tiny'],
  maxRounds: 2,
  assertions: [{ kind: 'published' }],
  defects: {},
  blueprint: { objects: [{ name: 'note', fields: { title: { type: 'text' } } }] },
};

describe('caseVersion', () => {
  it('is a sha256 of the content, stable under key order', () => {
    const v = caseVersion(CASE);
    expect(v).toMatch(/^[0-9a-f]{64}$/);
    const reordered = { blueprint: { objects: [{ fields: { title: { type: 'text' } }, name: 'note' }] }, defects: {}, assertions: CASE.assertions } as const;
    expect(caseVersion({ ...CASE, ...reordered })).toBe(v);
  });

  it('changes with anything graded or staged, and ignores where the case was read from', () => {
    const v = caseVersion(CASE);
    expect(caseVersion({ ...CASE, prompt: `${CASE.prompt} Add tags.` })).not.toBe(v);
    expect(caseVersion({ ...CASE, maxRounds: 3 })).not.toBe(v);
    expect(caseVersion({ ...CASE, assertions: [{ kind: 'rounds_at_most', max: 1 }] })).not.toBe(v);
    expect(caseVersion({ ...CASE, blueprint: { objects: [{ name: 'note', fields: { title: { type: 'textarea' } } }] } })).not.toBe(v);
    expect(caseVersion({ ...CASE, dir: '/elsewhere', version: 'x' } as typeof CASE)).toBe(v);
  });
});
