import { type BuildIssue, sortIssues } from '@bvl/build-issue';
import type { RawArtifact } from '@bvl/metadata';
import {
  answerPublish,
  answerVerify,
  type IssuePage,
  issueIds,
  type PublishAnswer,
  type PublishBuildResult,
  pageIssues,
  type VerifyAnswer,
  type VerifyBuildResult,
  type ViewOptions,
} from '@bvl/verify-build';

// What the model reads of bvl's answers: the one answer view every surface uses (verify-build's
// answerVerify / answerPublish / pageIssues, in summary detail), as compact JSON. Pure.

/** Longest artifact body get_artifact returns (characters of JSON). */
export const MAX_BODY_CHARS = 100_000;

/** Issues for the model (the compact form, a page of them, what was left out), as verify_build, stage_draft and the rest answer them. */
export function issuesForModel(issues: readonly BuildIssue[], draftVersion?: string): Omit<IssuePage, 'detail'> {
  const sorted = sortIssues(issues);
  const { detail: _detail, ...page } = pageIssues(sorted, issueIds(sorted), draftVersion, {}, 'summary');
  return page;
}

/** verify_build's answer for the model: the same answer the MCP tools give (summary by default; the agent may page and filter). */
export function verifyForModel(r: VerifyBuildResult, options: { readonly [K in keyof ViewOptions]?: ViewOptions[K] | null } = {}): VerifyAnswer {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== null && v !== undefined)) as ViewOptions;
  return answerVerify(r, given, 'summary');
}

/** publish's answer for the model. */
export function publishForModel(r: PublishBuildResult): PublishAnswer & { readonly why?: string } {
  return { ...answerPublish(r, {}, 'summary'), ...(r.outcome === 'nothing_to_publish' ? { why: 'there are no drafts: stage the app first' } : {}) };
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
