import { XMLValidator } from 'fast-xml-parser';
import { parse as parseJunit, type TestSuites } from 'junit2json';
import { describe, expect, it } from 'vitest';
import { NO_USAGE } from './eval-agent.ts';
import { formatJunit } from './format-junit.ts';
import type { EvalBatch, StoredAttempt } from './run-eval-store.ts';
import { summarizeBatch } from './summarize-batch.ts';

// JUnit XML as a CI server reads it: checked well-formed by fast-xml-parser's validator and read
// back by junit2json (both from the npm registry), with hostile text in every place it can go.
const HOSTILE = 'a < b && c > "d" \'e\' \u0001\u0007 ]]> <script>';
const batch: EvalBatch = {
  id: 41,
  suite: 'golden',
  agent: 'openai',
  model: 'model-a,model-b',
  endpoint: null,
  gitCommit: 'abc123',
  subjects: [
    { agent: 'openai', model: 'model-a' },
    { agent: 'openai', model: 'model-b' },
  ],
  defects: 'all',
  judge: null,
  epochs: 1,
  plan: [
    { case: 'crm', version: 'v', variant: 'clean', prompt: 'default' },
    { case: 'crm', version: 'v', variant: 'seed-typos', prompt: 'default' },
    { case: 'crm', version: 'v', variant: 'unguessable', prompt: 'terse' },
  ],
  status: 'finished',
  createdAt: '2026-03-15T10:00:00.000Z',
  finishedAt: '2026-03-15T10:05:00.000Z',
};
const attempt = (variant: string, prompt: string, subject: string, status: StoredAttempt['status'], extra: Partial<StoredAttempt> = {}): StoredAttempt => ({
  batch: 41,
  agent: 'openai',
  model: subject.split('@')[1] ?? null,
  case: 'crm',
  version: 'v',
  variant,
  prompt,
  subject,
  epoch: 1,
  expected: 'pass',
  status,
  failureReason: status === 'pass' ? null : `${status}: ${HOSTILE}`,
  repairRounds: 1,
  stopReason: null,
  rounds: [],
  assertions: status === 'pass' ? [] : [{ kind: 'published', pass: false, outcome: 'fail', evidence: { published: false } }],
  issues:
    status === 'pass'
      ? []
      : [{ layer: 'graph', severity: 'error', code: 'unknown_field', artifact: { type: 'view', name: 'crm.default' }, message: `field ${HOSTILE}` }],
  evidence: null,
  session: null,
  card: null,
  review: null,
  tokensIn: 1000,
  tokensOut: 100,
  costUsd: 0.01,
  judgeUsage: NO_USAGE,
  latencyMs: 1500,
  worker: 'w',
  startedAt: '2026-03-15T10:00:00.000Z',
  finishedAt: '2026-03-15T10:00:01.500Z',
  tries: [],
  ...extra,
});
const attempts: StoredAttempt[] = [
  attempt('clean', 'default', 'openai@model-a', 'pass'),
  attempt('clean', 'default', 'openai@model-b', 'fail'),
  attempt('seed-typos', 'default', 'openai@model-a', 'error'),
  attempt('seed-typos', 'default', 'openai@model-b', 'limit'),
  attempt('unguessable', 'terse', 'openai@model-a', 'fail', { expected: 'fail' }),
  attempt('unguessable', 'terse', 'openai@model-b', 'pass', { expected: 'fail' }),
];

describe('formatJunit', () => {
  const xml = formatJunit({ batch, summary: summarizeBatch(batch, attempts), attempts });

  it('is well-formed XML, whatever the reasons and messages hold', () => {
    expect(XMLValidator.validate(xml, { allowBooleanAttributes: false })).toBe(true);
    expect(xml).not.toContain('<script>');
    expect(xml.includes('\u0001') || xml.includes('\u0007')).toBe(false);
  });

  it('reads back as JUnit: a suite per subject, a case per attempt; fail and limit are failures, error an error, an expected failure skipped', async () => {
    const junit = (await parseJunit(xml)) as TestSuites;
    expect(junit).toMatchObject({ name: 'bvl eval batch 41', tests: 6, failures: 2, errors: 1 });
    const suites = junit.testsuite!;
    expect(suites.map((s) => [s.name, s.tests, s.failures, s.errors, s.skipped])).toEqual([
      ['golden @ openai@model-a', 3, 0, 1, 1],
      ['golden @ openai@model-b', 3, 2, 0, 0],
    ]);
    const a = suites[0]!.testcase!;
    expect(a.map((t) => [t.classname, t.name, t.time])).toEqual([
      ['golden.crm', 'clean #1', 1.5],
      ['golden.crm', 'seed-typos #1', 1.5],
      ['golden.crm', 'unguessable ~terse #1', 1.5],
    ]);
    expect(a[1]!.error?.[0]).toMatchObject({ type: 'error', message: `error: a < b && c > "d" 'e'  ]]> <script>` });
    expect(a[1]!.error?.[0]?.inner).toContain('unknown_field view crm.default: field a < b');
    expect(a[2]!.skipped?.[0]?.message).toMatch(/^expected to fail for openai@model-a: fail: /);
    const b = suites[1]!.testcase!;
    expect(b[0]!.failure?.[0]).toMatchObject({ type: 'fail' });
    expect(b[0]!.failure?.[0]?.inner).toContain('assertion published failed: {"published":false}');
    expect(b[1]!.failure?.[0]).toMatchObject({ type: 'limit' });
    expect(b[2]!['system-out']?.[0]).toMatch(/passed, though the case expects openai@model-b to fail/);
    expect(suites[0]!.properties).toEqual(
      expect.arrayContaining([
        { name: 'batch', value: 41 }, // junit2json reads numbers as numbers
        { name: 'model', value: 'model-a' },
        { name: 'commit', value: 'abc123' },
      ]),
    );
  });

  it('an attempt the batch planned but never recorded is skipped, not silently missing', async () => {
    const partial = attempts.slice(0, 5);
    const junit = (await parseJunit(formatJunit({ batch, summary: summarizeBatch(batch, partial), attempts: partial }))) as TestSuites;
    const b = junit.testsuite![1]!;
    expect(b.tests).toBe(3);
    expect(b.testcase!.at(-1)).toMatchObject({ name: 'unguessable ~terse #1', skipped: [{ message: 'not run: the batch stopped before this attempt' }] });
  });
});
