import type { PackageScope, PlatformContext } from '@bvl/platform';
import { readOverlayRows } from '@bvl/platform';
import type { SessionView } from '@bvl/verify-build';

/** Drafts and published artifacts the opening message lists by name at most. */
const MAX_OPENING_NAMES = 80;

/** The first user message: the goal, what the package holds now, and the bounds. */
export async function openingMessage(platform: PlatformContext, scope: PackageScope, goal: string, session: SessionView): Promise<string> {
  const rows = await readOverlayRows(platform.db, scope.tenant, scope.package);
  const mine = rows.filter((r) => r.package === scope.package);
  const drafts = mine.filter((r) => r.state === 'draft').map((r) => `${r.type} ${r.name}${r.tombstone ? ' (retiring)' : ''}`);
  const live = mine.filter((r) => r.state === 'active').map((r) => `${r.type} ${r.name}`);
  const list = (xs: string[]) => (xs.length > MAX_OPENING_NAMES ? `${xs.slice(0, MAX_OPENING_NAMES).join(', ')}, … (${xs.length} in all)` : xs.join(', '));
  const b = session.bounds;
  return [
    `Goal: ${goal}`,
    '',
    `You build package "${scope.package}". Published now: ${live.length ? list(live) : 'nothing'}. Drafts now: ${drafts.length ? list(drafts) : 'none'}.`,
    `Bounds: the first verify_build, then at most ${b.maxRounds} repair round(s) (a verify_build after the drafts changed)${b.budgetTokens ? `; ${b.budgetTokens} tokens` : ''}${b.budgetUsd ? `; $${b.budgetUsd}` : ''}.`,
    'Stage what the goal needs (or repair the drafts), call verify_build, and publish when it says so.',
  ].join('\n');
}
