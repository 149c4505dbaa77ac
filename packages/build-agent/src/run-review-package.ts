import { type BuildIssue, sortIssues } from '@bvl/build-issue';
import { mergeOverlay, type RawArtifact } from '@bvl/metadata';
import { overlayOf, type PackageScope, type PlatformContext, readOverlayRows } from '@bvl/platform';
import { appendTurn, getSession, listRounds, recordReview, SessionError } from '@bvl/verify-build';
import { type AgentClient, agentClientFromEnv } from './agent-client.ts';
import { reviewIntent } from './run-intent-review.ts';

/** What review_intent answers: the judge's verdict on the build against the goal, its warnings and its spend. */
export interface PackageReview {
  readonly verdict: 'pass' | 'mismatch' | 'failed';
  /** The judge model. */
  readonly judge: string;
  readonly goal: string;
  readonly issues: BuildIssue[];
  readonly usage: { readonly tokensIn: number; readonly tokensOut: number; readonly costUsd: number };
  /** The session round the verdict is stored with, when a session was given and has a round. */
  readonly round?: number | undefined;
}

/**
 * The judge the environment configures: the endpoint of `agentClientFromEnv`, the model
 * `BVL_JUDGE_MODEL`, else `BVL_MODEL` (the builder's). A problem in one line when there is none.
 */
export function judgeFromEnv(env: Readonly<Record<string, string | undefined>>): { readonly client: AgentClient } | { readonly problem: string } {
  const model = env.BVL_JUDGE_MODEL?.trim() || env.BVL_MODEL?.trim();
  const r = agentClientFromEnv({ ...env, BVL_MODEL: model });
  return 'problem' in r ? { problem: `review_intent needs a judge model: ${r.problem.replace('BVL_MODEL', 'BVL_JUDGE_MODEL (or BVL_MODEL)')}` } : r;
}

/** The app as it stands: published ⊕ drafts, merged (a draft replaces the published item of its type and name). */
export async function packageArtifacts(platform: PlatformContext, scope: PackageScope): Promise<RawArtifact[]> {
  const rows = (await readOverlayRows(platform.db, scope.tenant, scope.package)).filter((r) => r.package === scope.package);
  const overlay = overlayOf(rows, scope.package);
  return [...mergeOverlay(overlay.published.artifacts, overlay.drafts.artifacts).merged.values()];
}

/**
 * review_intent over the store: the judge reads the package's build (published ⊕ drafts) against
 * the goal (given, else the session's). With a session, the verdict is stored with its last round,
 * its spend counted apart from the build's, and the call is a `review` turn of its transcript.
 * The review advises: its findings are `intent_mismatch` warnings, never errors.
 */
export async function reviewPackage(
  platform: PlatformContext,
  scope: PackageScope,
  input: { readonly judge: AgentClient; readonly goal?: string | undefined; readonly session?: string | undefined; readonly signal?: AbortSignal | undefined },
): Promise<PackageReview> {
  const session = input.session !== undefined ? await getSession(platform, { tenant: scope.tenant, id: input.session }) : undefined;
  if (session && session.package !== scope.package)
    throw new SessionError(`unknown session ${JSON.stringify(input.session)} in package ${JSON.stringify(scope.package)}`, 'not_found');
  const goal = input.goal?.trim() || session?.goal;
  if (!goal) throw new SessionError('review_intent needs the goal to judge against: give goal, or a session (its goal is used)', 'invalid');
  const artifacts = await packageArtifacts(platform, scope);
  const started = Date.now();
  const review = await reviewIntent({ client: input.judge, goal, artifacts, fallbackName: scope.package, signal: input.signal });
  let round: number | undefined;
  if (session) {
    const rounds = await listRounds(platform, { tenant: scope.tenant, id: session.id });
    if (rounds.length) {
      await recordReview(platform, { tenant: scope.tenant, id: session.id }, { judge: input.judge.model, ...review });
      round = rounds.at(-1)!.round;
    }
    const key = input.judge.openai.apiKey;
    await appendTurn(
      platform,
      { tenant: scope.tenant, session: session.id },
      {
        stage: 'review',
        role: 'assistant',
        content: JSON.stringify({ judge: input.judge.model, verdict: review.verdict, findings: review.issues.map((i) => i.message) }),
        tokensIn: review.usage.tokensIn,
        tokensOut: review.usage.tokensOut,
        ms: Date.now() - started,
      },
      { known: typeof key === 'string' && key !== 'none' ? [key] : [] },
    ).catch(() => undefined);
  }
  return {
    verdict: review.verdict,
    judge: input.judge.model,
    goal,
    issues: sortIssues(review.issues),
    usage: review.usage,
    ...(round !== undefined ? { round } : {}),
  };
}
