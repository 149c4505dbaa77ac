import { DEFAULT_PROMPT } from './eval-agent.ts';
import { outcomeOf } from './grade.ts';
import type { EvalBatch, StoredAttempt } from './run-eval-store.ts';
import type { BatchSummary } from './summarize-batch.ts';

/** Characters XML 1.0 cannot hold at all (control characters but tab, newline and return; lone surrogates; U+FFFE/F). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text or an attribute value made safe for XML: characters XML cannot hold dropped, markup escaped. */
export function xmlText(s: string): string {
  return s.replace(NOT_XML, '').replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&apos;');
}

/** Issues and assertions written into a failure's body at most. */
const BODY_ITEMS = 50;

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** The body of a failure: the reason, the errors left, the failed assertions with what was seen. */
function failureBody(a: StoredAttempt): string {
  const lines = [a.failureReason ?? ''];
  const errors = a.issues.filter((i) => i.severity === 'error');
  for (const i of errors.slice(0, BODY_ITEMS))
    lines.push(`${i.code} ${i.artifact.type} ${i.artifact.name}${i.ref?.member ? `.${i.ref.member}` : ''}${i.path ? ` ${i.path}` : ''}: ${i.message}`);
  if (errors.length > BODY_ITEMS) lines.push(`… and ${errors.length - BODY_ITEMS} more errors`);
  const failed = a.assertions.filter((x) => outcomeOf(x) === 'fail');
  for (const x of failed.slice(0, BODY_ITEMS)) lines.push(`assertion ${x.kind}${x.role ? ` ${x.role}` : ''} failed: ${JSON.stringify(x.evidence)}`);
  const skipped = a.assertions.filter((x) => outcomeOf(x) === 'skipped').length;
  if (skipped > 0) lines.push(`${skipped} assertion(s) could not run`);
  return lines.join('\n');
}

/** One attempt as a JUnit test case: its class is the suite and case, its name the variant, prompt and epoch. */
function testcase(a: StoredAttempt, suite: string): string {
  const name = `${a.variant}${a.prompt !== DEFAULT_PROMPT ? ` ~${a.prompt}` : ''} #${a.epoch}`;
  const open = `<testcase classname="${xmlText(`${suite}.${a.case}`)}" name="${xmlText(name)}" time="${seconds(a.latencyMs)}"`;
  const reason = xmlText(a.failureReason ?? a.status);
  const out = (text: string) => `<system-out>${xmlText(text)}</system-out>`;
  if (a.status === 'pass')
    return a.expected === 'fail' ? `${open}>${out(`passed, though the case expects ${a.subject} to fail: is the expectation stale?`)}</testcase>` : `${open}/>`;
  if (a.status === 'error') return `${open}><error message="${reason}" type="error">${xmlText(failureBody(a))}</error></testcase>`;
  // A failure the case expects of this agent (a defect set it cannot repair by design) is not a red test.
  if (a.expected === 'fail')
    return `${open}><skipped message="${xmlText(`expected to fail for ${a.subject}: ${a.failureReason ?? a.status}`)}"/>${out(failureBody(a))}</testcase>`;
  return `${open}><failure message="${reason}" type="${a.status}">${xmlText(failureBody(a))}</failure></testcase>`;
}

/**
 * A batch as JUnit XML (pure), the shape CI servers show: one `<testsuite>` per subject (agent and
 * model), one `<testcase>` per attempt — a `<failure>` for `fail` and `limit`, an `<error>` for
 * `error` (infrastructure), `<skipped>` for a failure the case expects of the agent and for an
 * attempt the batch planned but never recorded. Properties carry the batch, suite and commit.
 */
export function formatJunit(input: { readonly batch: EvalBatch; readonly summary: BatchSummary; readonly attempts: readonly StoredAttempt[] }): string {
  const { batch, summary } = input;
  const suites = summary.subjects.map((subject) => {
    const mine = input.attempts.filter((a) => a.subject === subject.subject);
    const recorded = new Set(mine.map((a) => `${a.case}\u0000${a.variant}\u0000${a.prompt}\u0000${a.epoch}`));
    const missing = summary.entries
      .filter((e) => e.subject === subject.subject)
      .flatMap((e) =>
        Array.from({ length: summary.epochs }, (_, i) => i + 1)
          .filter((epoch) => !recorded.has(`${e.case}\u0000${e.variant}\u0000${e.prompt}\u0000${epoch}`))
          .map(
            (epoch) =>
              `<testcase classname="${xmlText(`${batch.suite}.${e.case}`)}" name="${xmlText(`${e.variant}${e.prompt !== DEFAULT_PROMPT ? ` ~${e.prompt}` : ''} #${epoch}`)}" time="0.000"><skipped message="not run: the batch stopped before this attempt"/></testcase>`,
          ),
      );
    const failures = mine.filter((a) => (a.status === 'fail' || a.status === 'limit') && a.expected !== 'fail').length;
    const errors = mine.filter((a) => a.status === 'error').length;
    const skipped = mine.filter((a) => a.status !== 'pass' && a.status !== 'error' && a.expected === 'fail').length + missing.length;
    const time = mine.reduce((n, a) => n + a.latencyMs, 0);
    const props = [
      ['batch', String(batch.id)],
      ['agent', subject.agent],
      ...(subject.model ? [['model', subject.model]] : []),
      ...(batch.gitCommit ? [['commit', batch.gitCommit]] : []),
      ['cost_usd', subject.costUsd.toFixed(6)],
      ['tokens', String(subject.tokensIn + subject.tokensOut)],
    ];
    const tests = mine.length + missing.length;
    const xml = [
      `<testsuite name="${xmlText(`${batch.suite} @ ${subject.subject}`)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(time)}" timestamp="${xmlText(batch.createdAt.slice(0, 19))}">`,
      `<properties>${props.map(([k, v]) => `<property name="${xmlText(k!)}" value="${xmlText(v!)}"/>`).join('')}</properties>`,
      ...mine.map((a) => testcase(a, batch.suite)),
      ...missing,
      '</testsuite>',
    ].join('\n');
    return { xml, tests, failures, errors, skipped };
  });
  const total = (k: 'tests' | 'failures' | 'errors' | 'skipped') => suites.reduce((n, x) => n + x[k], 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlText(`bvl eval batch ${batch.id}`)}" tests="${total('tests')}" failures="${total('failures')}" errors="${total('errors')}" skipped="${total('skipped')}" time="${seconds(input.attempts.reduce((n, a) => n + a.latencyMs, 0))}">`,
    ...suites.map((x) => x.xml),
    '</testsuites>',
    '',
  ].join('\n');
}
