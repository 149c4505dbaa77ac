import { createHash } from 'node:crypto';
import type { ArtifactSet } from '@bvl/metadata';

/**
 * The identity of an app and its drafts as files: sha256 over every file read (its name and text),
 * in name order. What `bvl mcp` grades and binds patch ids and cursors to, as a draft version
 * binds them on the server: a file changed since is a stale patch id.
 */
export function filesVersion(published: ArtifactSet, drafts: ArtifactSet | undefined): string {
  const texts = [...(published.texts ?? []), ...(drafts?.texts ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(texts)).digest('hex').slice(0, 32);
}
