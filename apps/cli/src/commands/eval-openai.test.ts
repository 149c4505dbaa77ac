import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScriptedLlm, startScriptedLlm } from '@bvl/build-agent/testing';
import { type GoldenCase, loadGoldenCases } from '@bvl/eval-runner';
import { scriptedTurn } from '@bvl/eval-runner/testing';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../main.ts';
import { recordingIo } from '../test-io.ts';

// `bvl eval --agent openai` in-process, on PGlite under a temporary cwd, against a scripted
// OpenAI-compatible server on 127.0.0.1 (the real `openai` client on the path): a two-model matrix
// with a judge, recorded into a cassette; then the cassette replayed with no endpoint at all; a
// model the cassette lacks; a regression that fails the run; JUnit; `bvl eval show`.
const GOLDEN = join(import.meta.dirname, '../../../../evals/golden');
const PRICES = JSON.stringify({ 'model-a': { input: 1, output: 4 }, 'model-b': { input: 0.5, output: 2 }, 'judge-1': { input: 2, output: 8 } });
let cwd: string;
let helpdesk: GoldenCase;
const servers: ScriptedLlm[] = [];
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-eval-openai-'));
  helpdesk = (await loadGoldenCases(GOLDEN)).find((c) => c.name === 'helpdesk')!;
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await rm(cwd, { recursive: true, force: true });
});

const bvl = async (env: Record<string, string>, ...argv: string[]) => {
  const io = recordingIo(cwd, env);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
};
const run = ['eval', '--agent', 'openai', '--cases-dir', GOLDEN, '--cases', 'helpdesk', '--defects', 'none', '--concurrency', '2'];

/** A scripted endpoint: model-a builds the whole helpdesk; any other model builds it without dashboards (and its navigation). */
async function endpoint(whole: (model: string) => boolean) {
  const turn = scriptedTurn((req) => ({ blueprint: helpdesk.blueprint, skip: whole(String(req.body.model)) ? [] : ['dashboards', 'apps'] }));
  const llm = await startScriptedLlm(Array.from({ length: 400 }, () => turn));
  servers.push(llm);
  return llm;
}

describe('bvl eval --agent openai: a matrix, recorded, replayed with no endpoint', () => {
  it('runs two models side by side with a judge, records every call, and replays the batch offline with the same figures', async () => {
    const llm = await endpoint((m) => m === 'model-a');
    const live = { OPENAI_BASE_URL: llm.url, BVL_PRICES: PRICES };
    const tape = join(cwd, 'tape');
    const rec = await bvl(live, ...run, '--model', 'model-a,model-b', '--judge-model', 'judge-1', '--suite', 'matrix', '--record', 'tape', '--format', 'json');
    expect(rec.err).not.toMatch(/bvl: /);
    expect(rec.code).toBe(0);
    const a = JSON.parse(rec.out);
    // helpdesk in its two prompts (default, terse) by two models.
    expect(a).toMatchObject({ agent: 'openai', model: 'model-a,model-b', judge: 'judge-1', attempts: 4, planned: 4, pass: 2, fail: 2, error: 0 });
    expect(a.subjects.map((s: { subject: string; passRate: number; pass: number }) => [s.subject, s.pass, s.passRate])).toEqual([
      ['openai@model-a', 2, 1],
      ['openai@model-b', 0, 0],
    ]);
    const [sa, sb] = a.subjects;
    expect(sa.tokensIn).toBeGreaterThan(0);
    expect(sa.costUsd).toBeCloseTo((sa.tokensIn * 1 + sa.tokensOut * 4) / 1e6, 9);
    expect(sb.costUsd).toBeCloseTo((sb.tokensIn * 0.5 + sb.tokensOut * 2) / 1e6, 9);
    expect(a.spend.costUsd).toBeCloseTo(sa.costUsd + sb.costUsd, 9);
    // The judge graded the rubric of every published build, on its own bill.
    expect(a.spend.judgeTokensIn).toBe(4 * 1500);
    expect(a.spend.judgeCostUsd).toBeCloseTo((4 * (1500 * 2 + 30 * 8)) / 1e6, 9);
    const failedB = a.cases.find((c: { subject: string; prompt: string }) => c.subject === 'openai@model-b' && c.prompt === 'default');
    expect(failedB.failures[0].reason).toMatch(
      /assertions failed: dashboard_exists support_dashboard, widgets_return_rows, widgets_show_numbers, rubric urgent_work_visible/,
    );
    // The intent review's verdict is on the row: a mismatch is an intent_mismatch warning left.
    expect(failedB.failures[0].issues).toContainEqual(expect.objectContaining({ code: 'intent_mismatch', severity: 'warning' }));
    const recorded = (await readdir(tape)).filter((f) => f.endsWith('.json'));
    expect(recorded.length).toBeGreaterThan(8);
    const served = llm.requests.length;
    await llm.close();

    // No endpoint at all: the models come from the cassette (the judge's excluded).
    const replay = await bvl({ BVL_PRICES: PRICES }, ...run, '--judge-model', 'judge-1', '--suite', 'replayed', '--replay', 'tape', '--format', 'json');
    expect(replay.err).not.toMatch(/bvl: /);
    expect(replay.code).toBe(0);
    const b = JSON.parse(replay.out);
    expect(b).toMatchObject({ model: 'model-a,model-b', attempts: 4, pass: 2, fail: 2, error: 0, passRate: a.passRate });
    expect(b.subjects.map((s: { subject: string; pass: number }) => [s.subject, s.pass])).toEqual([
      ['openai@model-a', 2],
      ['openai@model-b', 0],
    ]);
    expect(b.spend).toMatchObject({ tokensIn: a.spend.tokensIn, tokensOut: a.spend.tokensOut, judgeTokensIn: a.spend.judgeTokensIn });
    expect(llm.requests.length).toBe(served);

    // JUnit for CI of the replayed batch, well-formed, one suite per model: the batch resumed with
    // every attempt done runs none and reports (a third run of the four attempts proved no more).
    const junit = await bvl({ BVL_PRICES: PRICES }, 'eval', '--resume', String(b.batch), '--replay', tape, '--format', 'junit');
    expect(junit.code).toBe(0);
    expect(junit.err).toMatch(/batch \d+ — 0 of 4 attempts to run/);
    expect(XMLValidator.validate(junit.out)).toBe(true);
    expect(junit.out).toMatch(/<testsuite name="replayed @ openai@model-a" tests="2" failures="0" errors="0"/);
    expect(junit.out).toMatch(/<testsuite name="replayed @ openai@model-b" tests="2" failures="2" errors="0"/);

    // The terminal view of one attempt: prompt, rounds with their issues, card, spend, and the transcript seam.
    const show = await bvl({}, 'eval', 'show', String(b.batch), '--case', 'helpdesk', '--subject', 'openai@model-b', '--prompt', 'terse');
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/^helpdesk \/ clean ~terse #1 @ openai@model-b — fail\n/);
    expect(show.out).toContain(`    ${helpdesk.prompts!.terse}`);
    expect(show.out).toMatch(/ {2}round 0 verify: 0 error\(s\), \d+ warning\(s\); fixed 0, new \d+, reappeared 0/);
    expect(show.out).toMatch(/ {2}card: ✓ structure · ✓ renders · /);
    // The attempt's transcript, read from its build session's store after its tenant was dropped: real turns.
    expect(show.out).toMatch(/ {2}transcript \(\d+ turns\):\n {4}system: the system prompt: \d+ characters/);
    expect(show.out).toMatch(/\n {4}user: Goal: /);
    expect(show.out).toMatch(/\n {4}assistant: {1,2}→ stage_drafts?\(/);
    expect(show.out).toMatch(/\n {4}assistant: {1,2}→ verify_build\(/);
    expect(show.out).toMatch(/\n {4}tool: \{/);
    expect(show.out).not.toContain('no transcript recorded');
    // The HTML attempt page shows the same turns.
    const report = await bvl({}, 'eval', 'report', '--batch', String(b.batch), '-o', 'openai-report.html');
    expect(report.code).toBe(0);
    const pages = await readdir(join(cwd, 'openai-report-attempts'));
    const page = await readFile(join(cwd, 'openai-report-attempts', pages.find((f) => f.startsWith('helpdesk.'))!), 'utf8');
    expect(page).toContain('<div class="turn assistant"');
    expect(page).toMatch(/<b>calls<\/b> <code>verify_build<\/code>/);
    expect(page).not.toContain('No transcript recorded');
    expect(show.out).toMatch(/ {2}intent review: mismatch\n {4}⚠ dashboard support: /);
    expect(show.out).toMatch(/ {4}fail {5}rubric urgent_work_visible: .*"reasoning":"The app has no dashboard, so satisfaction is not shown\."/);
    const summary = await bvl({}, 'eval', 'show', String(b.batch));
    expect(summary.out).toContain('subject         pass  pass rate  pass@1  rounds');
    expect((await bvl({}, 'eval', 'show', String(b.batch), '--case', 'nope')).err).toMatch(/has no attempt of case "nope" \(it has: helpdesk\)/);
  });

  it('replaying a model the cassette never recorded makes those attempts errors naming the request; the others run', async () => {
    // The same prices as the recording: the verify answer tells the model its spend, so it is part of what is asked.
    const r = await bvl({ BVL_PRICES: PRICES }, ...run, '--model', 'model-a,model-c', '--suite', 'missing', '--replay', 'tape', '--format', 'json');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bvl: 2 attempts hit an infrastructure error/);
    const out = JSON.parse(r.out);
    expect(out.subjects.map((s: { subject: string; pass: number; error: number }) => [s.subject, s.pass, s.error])).toEqual([
      ['openai@model-a', 2, 0],
      ['openai@model-c', 0, 2],
    ]);
    const c = out.cases.find((x: { subject: string }) => x.subject === 'openai@model-c');
    expect(c.failures[0].reason).toMatch(
      /replay: 1 request\(s\) had no recorded answer: \/chat\/completions for model "model-c" — last message \(user\): "Goal: /,
    );
  });

  it('--budget-tokens bounds every attempt: a budget that cannot hold one prompt makes no model call, and the attempt stops as budget', async () => {
    const llm = await endpoint(() => true);
    const r = await bvl(
      { OPENAI_BASE_URL: llm.url, BVL_PRICES: PRICES },
      ...run,
      '--model',
      'model-a',
      '--suite',
      'budget',
      '--budget-tokens',
      '250',
      '--format',
      'json',
    );
    expect(llm.requests).toHaveLength(0);
    const out = JSON.parse(r.out);
    expect(out).toMatchObject({ attempts: 2, pass: 0 });
    expect(out.cases.map((c: { failures: { reason: string }[] }) => c.failures.map((f) => f.reason).join(' | '))).toEqual([
      expect.stringMatching(/budget/),
      expect.stringMatching(/budget/),
    ]);
    expect((await bvl({}, ...run, '--budget-usd', 'lots')).err).toMatch(/--budget-usd takes a positive number of US dollars \(got "lots"\)/);
  });

  it('a matrix with a model the live endpoint does not serve: those attempts are errors, the others run', async () => {
    const turn = scriptedTurn(() => ({ blueprint: helpdesk.blueprint }));
    const unknown = { status: 404, body: { error: { message: 'The model `model-x` does not exist', type: 'invalid_request_error' } } };
    const llm = await startScriptedLlm(
      Array.from({ length: 400 }, () => (req: Parameters<typeof turn>[0]) => (req.body.model === 'model-x' ? unknown : turn(req))),
    );
    servers.push(llm);
    const r = await bvl({ OPENAI_BASE_URL: llm.url }, ...run, '--model', 'model-a,model-x', '--suite', 'unknown-model', '--format', 'json');
    expect(r.code).toBe(2);
    const out = JSON.parse(r.out);
    expect(out.subjects.map((s: { subject: string; pass: number; error: number }) => [s.subject, s.pass, s.error])).toEqual([
      ['openai@model-a', 2, 0],
      ['openai@model-x', 0, 2],
    ]);
    const x = out.cases.find((c: { subject: string }) => c.subject === 'openai@model-x');
    expect(x.failures[0].reason).toMatch(/^agent: .*404 The model `model-x` does not exist/);
  });

  it('a regression against the baseline exits 100 with --fail-on-regression, naming the entry', async () => {
    const good = await endpoint(() => true);
    const base = await bvl({ OPENAI_BASE_URL: good.url }, ...run, '--model', 'model-a', '--suite', 'regress', '--format', 'json');
    expect(JSON.parse(base.out)).toMatchObject({ pass: 2, fail: 0 });
    const bad = await endpoint(() => false);
    const now = await bvl({ OPENAI_BASE_URL: bad.url }, ...run, '--model', 'model-a', '--suite', 'regress', '--fail-on-regression');
    expect(now.code).toBe(100);
    expect(now.err).toMatch(
      /bvl: 2 entries regressed against batch \d+: helpdesk\/clean @ openai@model-a 100% → 0%, helpdesk\/clean ~terse @ openai@model-a 100% → 0%/,
    );
    expect(now.out).toContain('regressed (2): helpdesk/clean 100.0% → 0.0%, helpdesk/clean ~terse 100.0% → 0.0%');
    // Without the flag the same outcome is a result, not a failed run.
    expect((await bvl({ OPENAI_BASE_URL: bad.url }, ...run, '--model', 'model-a', '--suite', 'regress')).code).toBe(0);
  });

  it('a cassette that cannot be used is one line and exit 2; --record and --replay do not go together', async () => {
    const missing = await bvl({}, ...run, '--replay', 'no-such-tape');
    expect(missing).toMatchObject({ code: 2, out: '' });
    expect(missing.err).toBe(`bvl: cassette ${join(cwd, 'no-such-tape')} cannot be read: ENOENT\n`);
    const both = await bvl({}, ...run, '--record', 'a', '--replay', 'b');
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--record and --replay cannot go together/);
    const noModel = await bvl({}, 'eval', '--cases-dir', GOLDEN, '--cases', 'helpdesk', '--model', 'x');
    expect(noModel.err).toMatch(/--model is for an agent that runs a model \(--agent openai\); blueprint has none/);
  });
});
