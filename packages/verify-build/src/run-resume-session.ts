import type { PlatformContext } from '@bvl/platform';
import { getSession, type SessionView } from './run-session-store.ts';
import { SessionError } from './session-error.ts';

/**
 * Opens an interrupted build's session again so it can go on within what is left of its bounds
 * (its rounds and spend stay counted): an open session (its process was killed) as it is, a
 * `cancelled` one (Ctrl-C) reopened. Any other stop reason was decided by the loop and stands:
 * {@link SessionError} `stopped`. Another tenant's or an unknown session: `not_found`.
 */
export async function resumeSession(ctx: PlatformContext, input: { readonly tenant: string; readonly id: string }): Promise<SessionView> {
  const s = await getSession(ctx, input);
  if (s.status === 'open') return s;
  if (s.stopReason !== 'cancelled')
    throw new SessionError(`session ${s.id} stopped (${s.stopReason}): only an interrupted or cancelled build can be resumed`, 'stopped');
  await ctx.db
    .updateTable('bvl.build_sessions')
    .set({ status: 'open', stop_reason: null, updated_at: ctx.now().toISOString() })
    .where('id', '=', s.id)
    .where('tenant_id', '=', input.tenant)
    .where('stop_reason', '=', 'cancelled')
    .execute();
  return getSession(ctx, input);
}
