import { type BuildIssue, fingerprint } from '@bvl/build-issue';
import { collectStack } from '@bvl/metadata';
import { exampleDoc, generateBrokenStack } from '@bvl/test-support';
import { verify } from '@bvl/verify';
import { describe, expect, it } from 'vitest';
import { answerVerify } from './answer-verify.ts';
import { type AnswerIssue, pageIssues } from './answer-view.ts';
import { buildCard } from './build-card.ts';
import { issueIds, issueOfPatchId } from './issue-ids.ts';
import { masks } from './mask-issues.ts';
import type { VerifyBuildResult } from './run-verify-build.ts';
import { AnswerError, type ViewOptions } from './view-options.ts';

const VERSION = '0123456789abcdef0123456789abcdef';
const broken = generateBrokenStack(42);
const big = verify(collectStack(broken.app), collectStack(broken.drafts, { draft: true }));
const example = verify(collectStack(exampleDoc('app')), collectStack(exampleDoc('drafts'), { draft: true }));

/** A verify_build result over a verification (no session), as the answer view reads it. */
const resultOf = (v: typeof big, draftVersion = VERSION): VerifyBuildResult => ({
  ok: v.publishable && !v.issues.some((i) => i.severity === 'error'),
  publishable: v.publishable,
  issues: v.issues,
  checked: v.checked,
  card: buildCard({ issues: v.issues, checked: v.checked }),
  session: null,
  fixes: [],
  unchanged: false,
  draftVersion,
});
const page = (issues: readonly BuildIssue[], options: ViewOptions, detail: 'summary' | 'full' = 'summary', version = VERSION) =>
  pageIssues(issues, issueIds(issues), version, options, detail);
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AnswerError);
    return { message: (e as AnswerError).message, problems: (e as AnswerError).problems };
  }
  throw new Error('expected an AnswerError');
};

describe('the answer view', () => {
  it('the generated broken stack has 252 issues: 210 errors, 42 warnings', () => {
    expect(big.issues.filter((i) => i.severity === 'error')).toHaveLength(210);
    expect(big.issues).toHaveLength(252);
  });

  it('a summary lists 20 compact issues, errors first, counts the rest and names every other error by code and artifact', () => {
    const p = page(big.issues, {});
    expect(p.issues).toHaveLength(20);
    expect(p.more).toMatchObject({ errors: 190, warnings: 42, cursor: expect.stringMatching(/^c1\./) });
    const listed = new Set(p.issues.map((i) => i.id));
    for (const e of big.issues.filter((i) => i.severity === 'error')) {
      const id = fingerprint(e);
      if (listed.has(id)) continue;
      const group = p.unlisted!.find((g) => g.code === e.code);
      expect(group?.artifacts, `${e.code} ${e.artifact.name}`).toContain(`${e.artifact.type} ${e.artifact.name}`);
    }
    expect(p.unlisted!.reduce((n, g) => n + g.count, 0)).toBe(190);
    // The compact form: a BuildIssue's identifying fields, one message, its fix and patch id; nothing else.
    const keys = new Set(p.issues.flatMap((i) => Object.keys(i)));
    expect([...keys].sort()).toEqual(['artifact', 'code', 'fix', 'fixSafety', 'id', 'layer', 'masks', 'member', 'message', 'patchId', 'path', 'severity']);
  });

  it('a truncated page keeps every error before any warning, and paging with the cursor visits each issue once', () => {
    const seen: string[] = [];
    let options: ViewOptions = { limit: 100 };
    for (let n = 0; n < 10; n++) {
      const p = page(big.issues, options);
      seen.push(...p.issues.map((i) => i.id));
      const severities = p.issues.map((i) => i.severity);
      expect(severities.indexOf('warning') === -1 || severities.lastIndexOf('error') < severities.indexOf('warning')).toBe(true);
      if (!p.more) break;
      options = { cursor: p.more.cursor!, limit: 100 };
    }
    expect(seen).toEqual(issueIds(big.issues));
  });

  it('filters by codes, severity, layer and artifact; a cursor carries its filters', () => {
    const p = page(big.issues, { codes: ['unknown_measure'], limit: 10 });
    expect(p.matching).toEqual({ errors: 42, warnings: 0 });
    expect(p.issues.every((i) => i.code === 'unknown_measure')).toBe(true);
    const next = page(big.issues, { cursor: p.more!.cursor! });
    expect(next.issues.every((i) => i.code === 'unknown_measure')).toBe(true);
    expect(next.issues[0]!.id).not.toBe(p.issues[0]!.id);
    expect(page(big.issues, { severity: 'warning' }).matching).toEqual({ errors: 0, warnings: 42 });
    expect(page(big.issues, { artifact: 'dashboard gen_dash_7' }).issues.map((i) => i.code)).toEqual(['unknown_measure', 'dangling_dataset']);
    expect(page(big.issues, { artifact: 'gen_dash_7' }).matching.errors).toBe(2);
    expect(page(big.issues, { layer: 'render' }).matching).toEqual({ errors: 0, warnings: 0 });
  });

  it('bad input is one clear AnswerError each: an unknown code, a cursor of other drafts, of other filters, or not a cursor', () => {
    expect(refusal(() => page(big.issues, { codes: ['unknown_measure', 'unknwn_field'] })).problems).toEqual([
      { path: 'codes.1', message: expect.stringMatching(/^unknown code "unknwn_field"; did you mean "unknown_field"\?/) },
    ]);
    const cursor = page(big.issues, { codes: ['unknown_field'] }).more!.cursor!;
    expect(refusal(() => page(big.issues, { cursor }, 'summary', 'ffffffffffffffffffffffffffffffff')).message).toBe(
      'the cursor belongs to an answer on other drafts',
    );
    expect(refusal(() => page(big.issues, { cursor, severity: 'error' })).message).toBe('the cursor belongs to an answer with other filters');
    expect(refusal(() => page(big.issues, { cursor: 'c1.bm90IGpzb24' })).message).toBe('the cursor is not one bvl gave');
    // The same filters given again with the cursor are fine.
    expect(page(big.issues, { cursor, codes: ['unknown_field'] }).issues[0]!.code).toBe('unknown_field');
  });

  it('a patch id is bound to the draft version it was offered on', () => {
    const withPatch = page(big.issues, {}).issues.find((i) => i.patchId)!;
    expect(issueOfPatchId(withPatch.patchId!, VERSION, 'patches.0')).toBe(withPatch.id);
    expect(refusal(() => issueOfPatchId(withPatch.patchId!, `f${VERSION.slice(1)}`, 'patches.0')).message).toBe(
      'a patch was offered on drafts that have changed since',
    );
    expect(refusal(() => issueOfPatchId('p1', VERSION, 'patches.0')).message).toBe('an unknown patch id');
  });

  it('a dangling_dataset lists the checks it masks, and masks exactly its own widget', () => {
    const dangling = big.issues.find((i) => i.code === 'dangling_dataset' && i.artifact.name === 'gen_dash_3')!;
    const listed = page([dangling], {}).issues[0] as AnswerIssue;
    expect(listed.masks).toEqual(expect.arrayContaining(['unknown_measure', 'unknown_dimension']));
    const measureOf = (member: string): BuildIssue => ({ ...dangling, code: 'unknown_measure', path: `/widgets/${member === 'trend' ? 2 : 0}/values/0` });
    expect(masks(dangling, { ...measureOf('trend'), ref: { type: 'dashboard', name: 'gen_dash_3', member: 'trend' } })).toBe(true);
    expect(masks(dangling, { ...measureOf('total'), ref: { type: 'dashboard', name: 'gen_dash_3', member: 'total' } })).toBe(false);
    expect(masks(dangling, { ...measureOf('trend'), artifact: { type: 'dashboard', name: 'gen_dash_4' } })).toBe(false);
  });

  it('each issue appears once per answer: the full card refers to issues by id', () => {
    const full = answerVerify(resultOf(example), {}, 'full');
    expect(full.issues).toHaveLength(3);
    expect(full.card!.byArtifact.flatMap((g) => g.issues).sort()).toEqual(full.issues.map((i) => i.id).sort());
    const text = JSON.stringify(full);
    for (const i of example.issues) expect(text.split(JSON.stringify(i.message)).length - 1).toBe(1);
  });

  it('full detail carries every BuildIssue field', () => {
    const full = answerVerify(resultOf(example), { detail: 'full' }, 'summary');
    expect(full.issues.map(({ id: _i, patchId: _p, masks: _m, ...rest }) => rest)).toEqual(example.issues);
  });
});
