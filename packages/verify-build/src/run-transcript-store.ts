import { type PlatformContext, tenantProblem } from '@bvl/platform';
import { sql } from 'kysely';
import { boundTurn, condenseTurn, MAX_TRANSCRIPT_CHARS, type StoredTurn, type TranscriptToolCall, type TurnToRecord } from './bound-turn.ts';

/** One stored turn, as `bvl session show` and `GET …/sessions/{id}/transcript` show it: the stored turn, numbered. */
export interface TranscriptTurnView extends Omit<StoredTurn, 'chars'> {
  readonly turn: number;
  /** Cut to make room within the session's bound (its texts end with a `[cut: …]` marker). */
  readonly condensed: boolean;
  readonly createdAt: string;
}

/** Where a turn goes: the session and the tenant it ran in. */
export interface TranscriptRef {
  readonly tenant: string;
  readonly session: string;
}

/** Attempts at a turn number when another writer took it meanwhile. */
const MAX_TURN_ATTEMPTS = 3;

/**
 * Appends one turn to a session's transcript: redacted (the `known` secrets and anything shaped
 * like one), each text bounded, numbered after the session's last turn. When the session's
 * transcript passes `maxChars` (default {@link MAX_TRANSCRIPT_CHARS}), its oldest turns are condensed (cut with a
 * marker, never dropped) until it fits. Returns the turn's number. Throws on a database failure:
 * a writer that must not fail (the built-in agent) catches and reports it.
 */
export async function appendTurn(
  ctx: PlatformContext,
  ref: TranscriptRef,
  turn: TurnToRecord,
  options: { readonly known?: readonly string[]; readonly maxChars?: number } = {},
): Promise<number> {
  const t = boundTurn(turn, options.known);
  const max = options.maxChars ?? MAX_TRANSCRIPT_CHARS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        // Writers to one session take turns: the next number is read and written under one lock
        // (PGlite has a single connection, so nothing runs beside this there).
        if (ctx.engine === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(${`bvl.transcript:${ref.session}`}, 0))`.execute(trx);
        const last = await trx
          .selectFrom('bvl.build_transcripts')
          .select((eb) => [eb.fn.max('turn').as('turn'), eb.fn.sum<string | number>('chars').as('chars')])
          .where('session_id', '=', ref.session)
          .executeTakeFirst();
        const n = last?.turn === null || last?.turn === undefined ? 0 : Number(last.turn) + 1;
        await trx
          .insertInto('bvl.build_transcripts')
          .values({
            session_id: ref.session,
            tenant_id: ref.tenant,
            turn: n,
            stage: t.stage,
            role: t.role,
            content: t.content,
            tool_calls: JSON.stringify(t.toolCalls),
            tokens_in: t.tokensIn,
            tokens_out: t.tokensOut,
            tokens_cached: t.tokensCached,
            tokens_reasoning: t.tokensReasoning,
            retries: t.retries,
            ms: t.ms,
            chars: t.chars,
            created_at: ctx.now().toISOString(),
          })
          .execute();
        let total = Number(last?.chars ?? 0) + t.chars;
        if (total <= max) return n;
        const old = await trx
          .selectFrom('bvl.build_transcripts')
          .select(['turn', 'content', 'tool_calls', 'chars'])
          .where('session_id', '=', ref.session)
          .where('condensed', '=', false)
          .orderBy('turn')
          .execute();
        for (const row of old) {
          if (total <= max) break;
          const c = condenseTurn({ content: row.content, toolCalls: row.tool_calls as TranscriptToolCall[] });
          await trx
            .updateTable('bvl.build_transcripts')
            .set({ content: c.content, tool_calls: JSON.stringify(c.toolCalls), chars: c.chars, condensed: true })
            .where('session_id', '=', ref.session)
            .where('turn', '=', row.turn)
            .execute();
          total -= row.chars - c.chars;
        }
        return n;
      });
    } catch (e) {
      // Two writers took the same number: the primary key refused one; it takes the next.
      if (attempt >= MAX_TURN_ATTEMPTS || (e as { code?: string }).code !== '23505') throw e;
    }
  }
}

/**
 * A session's transcript, in turn order: read by tenant and session id alone, so it outlives the
 * session's rows (an eval attempt's tenant is dropped after it ran). Empty when nothing was recorded.
 */
export async function readTranscript(ctx: PlatformContext, input: { readonly tenant: string; readonly id: string }): Promise<TranscriptTurnView[]> {
  if (tenantProblem(input.tenant)) return [];
  const rows = await ctx.db
    .selectFrom('bvl.build_transcripts')
    .selectAll()
    .where('tenant_id', '=', input.tenant)
    .where('session_id', '=', input.id)
    .orderBy('turn')
    .execute();
  return rows.map((r) => ({
    turn: r.turn,
    stage: r.stage,
    role: r.role,
    content: r.content,
    toolCalls: r.tool_calls as TranscriptToolCall[],
    tokensIn: r.tokens_in,
    tokensOut: r.tokens_out,
    tokensCached: r.tokens_cached,
    tokensReasoning: r.tokens_reasoning,
    retries: r.retries,
    ms: r.ms,
    condensed: r.condensed,
    createdAt: new Date(r.created_at).toISOString(),
  }));
}
