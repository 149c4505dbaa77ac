import { createHash } from 'node:crypto';
import type { OverlayRow } from '@bvl/platform';

/**
 * The identity of a package's draft set: sha256 over the package and each draft's type, name, body (its stored
 * content hash when read from the store) and tombstone flag, in slot order. An unchanged draft set hashes the same, so a repeated verify costs no round.
 */
export function draftHash(rows: readonly OverlayRow[], pkg: string): string {
  const drafts = rows
    .filter((r) => r.state === 'draft' && r.package === pkg)
    .map((r) => [r.type, r.name, r.tombstone ? 1 : 0, r.contentHash ?? JSON.stringify(r.body)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1));
  // The package is part of the identity: an answer's cursor and patch ids are never taken for another package's.
  return createHash('sha256')
    .update(JSON.stringify([pkg, drafts]))
    .digest('hex')
    .slice(0, 32);
}
