import type { BuildIssue } from '@bvl/build-issue';
import type { PlatformContext } from '@bvl/platform';
import { getSession } from './run-session-store.ts';
import { SessionError } from './session-error.ts';

/** Spend of one stage of a build. */
export interface StageUsage {
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
}

/** An intent review's verdict as stored with the round it judged. */
export interface StoredReview {
  /** The judge model. */
  readonly judge: string;
  readonly verdict: 'pass' | 'mismatch' | 'failed';
  readonly issues: readonly BuildIssue[];
  readonly usage: StageUsage;
}

/**
 * Stores an intent review with the session's last round and counts its spend apart from the
 * build's (the session's review columns). A session with no round yet stores nothing: there is
 * no build to have judged ({@link SessionError} `not_found` for an unknown session).
 */
export async function recordReview(ctx: PlatformContext, input: { readonly tenant: string; readonly id: string }, review: StoredReview): Promise<void> {
  const session = await getSession(ctx, input);
  const value: StoredReview = {
    judge: review.judge,
    verdict: review.verdict,
    issues: review.issues,
    usage: { tokensIn: review.usage.tokensIn, tokensOut: review.usage.tokensOut, costUsd: review.usage.costUsd },
  };
  await ctx.db.transaction().execute(async (trx) => {
    const last = await trx
      .selectFrom('bvl.build_rounds')
      .select((eb) => eb.fn.max('round').as('round'))
      .where('session_id', '=', session.id)
      .executeTakeFirst();
    if (last?.round === null || last?.round === undefined) throw new SessionError(`session ${session.id} has no round for a review to judge`, 'not_found');
    await trx
      .updateTable('bvl.build_rounds')
      .set({ review: JSON.stringify(value) })
      .where('session_id', '=', session.id)
      .where('round', '=', Number(last.round))
      .execute();
    await trx
      .updateTable('bvl.build_sessions')
      .set((eb) => ({
        review_tokens_in: eb('review_tokens_in', '+', value.usage.tokensIn),
        review_tokens_out: eb('review_tokens_out', '+', value.usage.tokensOut),
        review_cost_usd: eb('review_cost_usd', '+', value.usage.costUsd),
      }))
      .where('id', '=', session.id)
      .execute();
  });
}

/** A session's reviews by round and its spend by stage (build: the session's usage; review: the judge's). */
export async function sessionReviews(
  ctx: PlatformContext,
  input: { readonly tenant: string; readonly id: string },
): Promise<{
  readonly reviews: ReadonlyArray<{ readonly round: number; readonly review: StoredReview }>;
  readonly cost: { readonly build: StageUsage; readonly review: StageUsage };
}> {
  const session = await getSession(ctx, input);
  const rows = await ctx.db
    .selectFrom('bvl.build_rounds')
    .select(['round', 'review'])
    .where('session_id', '=', session.id)
    .where('review', 'is not', null)
    .orderBy('round')
    .execute();
  const s = await ctx.db
    .selectFrom('bvl.build_sessions')
    .select(['review_tokens_in', 'review_tokens_out', 'review_cost_usd'])
    .where('id', '=', session.id)
    .executeTakeFirstOrThrow();
  return {
    reviews: rows.map((r) => ({ round: r.round, review: r.review as StoredReview })),
    cost: {
      build: { tokensIn: session.usage.tokensIn, tokensOut: session.usage.tokensOut, costUsd: session.usage.costUsd },
      review: { tokensIn: s.review_tokens_in, tokensOut: s.review_tokens_out, costUsd: Number(s.review_cost_usd) },
    },
  };
}
