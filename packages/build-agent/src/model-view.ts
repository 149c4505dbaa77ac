import type { BuildIssue } from '@bvl/build-issue';
import type { RawArtifact } from '@bvl/metadata';
import { formatCardLine, type PublishBuildResult, type VerifyBuildResult } from '@bvl/verify-build';

// What the model reads of bvl's answers: compact, sorted JSON. Pure.

/** Issues shown to the model per answer; the rest are counted. */
export const MAX_ISSUES_SHOWN = 40;
/** Longest artifact body get_artifact returns (characters of JSON). */
export const MAX_BODY_CHARS = 100_000;

/** An issue as the model reads it. */
export function issueForModel(i: BuildIssue): Record<string, unknown> {
  return {
    severity: i.severity,
    code: i.code,
    artifact: `${i.artifact.type} ${i.artifact.name}`,
    ...(i.path !== undefined ? { path: i.path } : {}),
    message: i.message,
    ...(i.fix ? { fix: i.fix } : {}),
    ...(i.suggestions?.length ? { suggestions: i.suggestions } : {}),
  };
}

/** Issues for the model: at most MAX_ISSUES_SHOWN, and how many more there are. */
export function issuesForModel(issues: readonly BuildIssue[]): { issues: Record<string, unknown>[]; moreIssues?: number } {
  const shown = issues.slice(0, MAX_ISSUES_SHOWN).map(issueForModel);
  return issues.length > MAX_ISSUES_SHOWN ? { issues: shown, moreIssues: issues.length - MAX_ISSUES_SHOWN } : { issues: shown };
}

/** verify_build's answer for the model: what to do next and why, what bvl fixed, what is left. */
export function verifyForModel(r: VerifyBuildResult, why: string | undefined): Record<string, unknown> {
  const s = r.session;
  return {
    next: s?.next ?? (r.publishable ? 'publish' : 'repair'),
    ...(s?.stopReason ? { stopReason: s.stopReason } : {}),
    ...(why ? { why } : {}),
    ...(s ? { repairRoundsUsed: s.repairRounds, repairRoundsLeft: Math.max(0, s.bounds.maxRounds - s.repairRounds) } : {}),
    ...(r.unchanged ? { unchanged: 'no draft changed since the last verify_build: this cost no round' } : {}),
    card: formatCardLine(r.card),
    ...(r.fixes.length
      ? { fixedForYou: r.fixes.map((f) => ({ artifact: `${f.artifact.type} ${f.artifact.name}`, path: f.path, old: f.old, new: f.new, code: f.code })) }
      : {}),
    errors: r.issues.filter((i) => i.severity === 'error').length,
    warnings: r.issues.filter((i) => i.severity === 'warning').length,
    ...issuesForModel(r.issues),
  };
}

/** publish's answer for the model. */
export function publishForModel(r: PublishBuildResult): Record<string, unknown> {
  return {
    outcome: r.outcome,
    published: r.published,
    ...(r.session ? { next: r.session.next, ...(r.session.stopReason ? { stopReason: r.session.stopReason } : {}) } : {}),
    ...(r.card ? { card: formatCardLine(r.card) } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.outcome === 'nothing_to_publish' ? { why: 'there are no drafts: stage the app first' } : {}),
    ...issuesForModel(r.issues),
  };
}

/** An artifact as get_artifact returns it: the stack-format body (a view as a view item). */
export function artifactForModel(a: RawArtifact, state: string): Record<string, unknown> {
  const body =
    a.type === 'view' ? { name: a.name, ...(a.object ? { object: a.object } : {}), viewKind: a.viewKind ?? 'list', config: a.body } : (a.body as unknown);
  const text = JSON.stringify(body);
  if (text.length > MAX_BODY_CHARS)
    return { type: a.type, name: a.name, state, error: `the body is ${text.length} characters, over the ${MAX_BODY_CHARS} shown` };
  return { type: a.type, name: a.name, state, body };
}

/** The one-line JSON of a tool's answer. */
export const toolJson = (value: unknown): string => JSON.stringify(value);
