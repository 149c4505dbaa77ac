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
      'ATTEMPT_QUEUE',
      'AssertionSchema',
      'BLUEPRINT_FILE',
      'BlueprintSchema',
      'CASE_FILE',
      'CLEAN_VARIANT',
      'CaseFileSchema',
      'DEFAULT_QUEUE_SCHEMA',
      'DEFECT_FILTERS',
      'DefectSetSchema',
      'EVAL_AGENTS',
      'EVAL_STATUSES',
      'EVAL_TENANT_PREFIX',
      'EvalRunError',
      'ExpectedIssueSchema',
      'GoldenCaseError',
      'NIGHTLY_QUEUE',
      'NO_USAGE',
      'OriginSchema',
      'REPAIRERS',
      'RateLimitedError',
      'SWEEP_VIEW_ROWS',
      'blueprintAgent',
      'caseFromSession',
      'caseVersion',
      'collectEvidence',
      'compareBatches',
      'compareWithBaseline',
      'duration',
      'emptyApp',
      'enqueueBatch',
      'entryStatus',
      'evalAgentNamed',
      'evalCaseOf',
      'formatEvalSummary',
      'formatProgress',
      'getBatch',
      'gradeAssertions',
      'gradeAttempt',
      'listAttempts',
      'listBatches',
      'loadEvalReport',
      'loadGoldenCase',
      'loadGoldenCases',
      'matchRole',
      'nightlySchedule',
      'openEvalQueue',
      'openaiAgent',
      'parseGoldenCase',
      'passAtK',
      'passHatK',
      'passRate',
      'passRateChart',
      'percent',
      'planEntries',
      'plannedAttempts',
      'recordCase',
      'renderEvalReport',
      'runAdaptivePool',
      'runAttempt',
      'runEvalWorker',
      'runEvals',
      'scheduleNightly',
      'stackDocument',
      'summarizeBatch',
      'summarizeGraph',
      'summarizeStoredBatch',
      'sweepEvalTenants',
      'sweepPublished',
      'unscheduleNightly',
      'waitForBatch',
      'words',
      'workerName',
    ]);
  });
});
