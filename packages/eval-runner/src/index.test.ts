import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from './index.ts';

// The public surface is pinned: a new export is a decision, not an accident.
const dir = new URL('.', import.meta.url);
const modules = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts');

describe('the public surface', () => {
  it('index.ts re-exports every module of the package', () => {
    const index = readFileSync(new URL('index.ts', dir), 'utf8');
    expect(modules.filter((m) => !index.includes(`'./${m}'`))).toEqual([]);
  });

  it('exports exactly these values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'AssertionSchema',
      'BLUEPRINT_FILE',
      'BlueprintSchema',
      'CASE_FILE',
      'CaseFileSchema',
      'DefectSetSchema',
      'ExpectedIssueSchema',
      'GoldenCaseError',
      'REPAIRERS',
      'SWEEP_VIEW_ROWS',
      'caseVersion',
      'collectEvidence',
      'emptyApp',
      'gradeAssertions',
      'loadGoldenCase',
      'loadGoldenCases',
      'matchRole',
      'parseGoldenCase',
      'summarizeGraph',
      'sweepPublished',
      'words',
    ]);
  });
});
