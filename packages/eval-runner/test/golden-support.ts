// Test support for the golden suite: where the cases live, a defect set staged on its blueprint,
// and the fixer's patches (issue paths address artifact documents) carried onto the stack document.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildIssue, CATALOGUE, type IssueCode, type JsonPatchOp } from '@bvl/build-issue';
import { collectStack, type Graph } from '@bvl/metadata';
import { stageDrafts } from '@bvl/platform';
import { applyPatch } from '@bvl/verify';
import { createSession, publishBuild, verifyBuild } from '@bvl/verify-build';
import type { Blueprint, ExpectedIssue } from '../src/case-file.ts';
import { type EvalAgent, NO_USAGE } from '../src/eval-agent.ts';
import type { GoldenCase } from '../src/golden-case.ts';

/** The golden cases of this repository. */
export const GOLDEN_DIR = join(import.meta.dirname, '../../../evals/golden');

/**
 * The reference cases' folders, read when the test file is collected, so every case gets its own
 * tests. A case recorded from a session (`origin` set by bvl eval add-case) is left out: its
 * blueprint is the state the session left, not a clean reference (loadGoldenCases still checks it).
 */
export const GOLDEN_NAMES: readonly string[] = readdirSync(GOLDEN_DIR, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(GOLDEN_DIR, e.name, 'case.json')))
  .filter((e) => (JSON.parse(readFileSync(join(GOLDEN_DIR, e.name, 'case.json'), 'utf8')) as { origin?: unknown }).origin === undefined)
  .map((e) => e.name)
  .sort();

/** The blueprint with a defect set applied. */
export function defective(c: GoldenCase, defect: string): Blueprint {
  const set = c.defects[defect];
  if (!set) throw new Error(`case ${c.name} has no defect set ${defect}`);
  return patched(c.blueprint, set.ops);
}

/** RFC 6902 ops applied to a copy of a stack document (all or nothing; throws naming the failing op). */
function patched(doc: Blueprint, ops: readonly JsonPatchOp[]): Blueprint {
  const r = applyPatch(doc, ops);
  if (!r.ok) throw new Error(`op ${r.opIndex} does not apply: ${r.error}`);
  return r.value as Blueprint;
}

/** A stack document as an artifact set (drafts, as an agent stages them). */
export const stackOf = (doc: Blueprint) => collectStack(doc, { draft: true });

/** Whether a catalogue code is found by the static layers (L1/L2), not after publish. */
export const isStatic = (code: string): boolean => CATALOGUE[code as IssueCode].layer !== 'runtime';

/**
 * Issues as comparable rows: code, artifact, and the path when the expectation names one. Sorted,
 * so a set compares equal whatever the order.
 */
export function issueRows(issues: ReadonlyArray<Pick<BuildIssue, 'code' | 'artifact' | 'path'>>, expected: readonly ExpectedIssue[]): string[] {
  const withPath = new Set(expected.filter((e) => e.path !== undefined).map((e) => `${e.code} ${e.artifact.type} ${e.artifact.name}`));
  return issues
    .map((i) => {
      const key = `${i.code} ${i.artifact.type} ${i.artifact.name}`;
      return withPath.has(key) ? `${key} ${i.path ?? ''}` : key;
    })
    .sort();
}

/** The expectation as the same rows. */
export const expectedRows = (expected: readonly ExpectedIssue[]): string[] =>
  expected.map((e) => `${e.code} ${e.artifact.type} ${e.artifact.name}${e.path !== undefined ? ` ${e.path}` : ''}`).sort();

/**
 * An issue's patch carried onto the stack document: its paths address the artifact's stored
 * document (a view's container, a dashboard, a seed), which sits in the stack at the artifact's
 * source pointer (minus a view's place inside its document).
 */
export function stackPatch(graph: Graph, issue: BuildIssue): JsonPatchOp[] {
  const source = graph.sourceOf(issue.artifact.type, issue.artifact.name);
  if (!source) throw new Error(`no source for ${issue.artifact.type} ${issue.artifact.name}`);
  const inDoc = issue.artifact.type === 'view' ? (graph.views.get(issue.artifact.name)?.docPrefix ?? '') : '';
  if (!source.pointer.endsWith(inDoc)) throw new Error(`view ${issue.artifact.name} is not at ${inDoc} of its document`);
  const doc = source.pointer.slice(0, source.pointer.length - inDoc.length);
  return (issue.patch ?? []).map((op) => ('from' in op ? { ...op, path: doc + op.path, from: doc + op.from } : { ...op, path: doc + op.path }));
}

/** Applies every issue's patch (as the deterministic fixer would) to the stack document. */
export function applyFixes(doc: Blueprint, graph: Graph, issues: readonly BuildIssue[]): Blueprint {
  return patched(
    doc,
    issues.flatMap((i) => stackPatch(graph, i)),
  );
}

/**
 * The blueprint agent without the fixer: what a platform regression looks like — a second batch
 * regresses on the cases whose defects the fixer repairs.
 */
export const noFixer: EvalAgent = {
  name: 'blueprint',
  readsPrompt: false,
  async run({ platform: p, scope, case: c }) {
    await stageDrafts(p, scope, collectStack(c.start, { draft: true }));
    const session = await createSession(p, { ...scope, goal: c.prompt, bounds: { maxRounds: c.maxRounds } });
    const v = await verifyBuild(p, { ...scope, session: session.id, fix: false });
    if (v.session?.next === 'publish') await publishBuild(p, { ...scope, session: session.id });
    return { sessionId: session.id, usage: NO_USAGE };
  },
};
