import { createHash } from 'node:crypto';
import { type Stats, statSync } from 'node:fs';
import { type ArtifactSet, SourceTexts } from '@bvl/metadata';

/**
 * A file whose mtime or ctime is this close to the moment it was stat'ed (or later) is "racy": a
 * write landing in the same timestamp tick leaves its stat as it was, so its digest is never reused
 * and it is read again on every call until it is older. 2 s covers the coarsest timestamps bvl may
 * meet (FAT's 2 s, HFS+'s 1 s; ext4, xfs, btrfs and tmpfs stamp within a clock tick).
 */
export const RACY_MS = 2_000;

/** Entries kept before the cache starts over (a long-lived server over ever new files). */
const MAX_ENTRIES = 100_000;

interface Entry {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly dev: number;
  readonly digest: string;
  /** Its mtime and ctime were older than RACY_MS when it was stat'ed: any later write changes its ctime. */
  readonly settled: boolean;
}

/**
 * Digests of file texts, reused while a file's stat (size, mtime, ctime, inode, device) stays as it
 * was when the digest was taken and the file had settled (see {@link RACY_MS}); read again
 * otherwise. ctime is set by the kernel on every write and every change of mtime (utimes), and no
 * caller can set it back: a rewrite of the same size that restores the mtime still changes it. A
 * write after the stat of a settled file gets a ctime later than its recorded one; a write in the
 * tick of a file not yet settled is caught by reading the file again.
 */
export class FileDigests {
  private readonly at = new Map<string, Entry>();

  /** `now`: the clock the racy window is measured on (a test moves it). */
  constructor(private readonly now: () => number = Date.now) {}

  /** The digest of `file` of `texts`: a held text's own, a file's from the cache or read again. */
  digest(texts: ReadonlyMap<string, string>, file: string): string {
    const stamp = texts instanceof SourceTexts ? texts.stampOf(file) : undefined;
    if (!stamp) return hash(texts.get(file) ?? '');
    const before = this.now();
    let now: Stats;
    try {
      now = statSync(stamp.path);
    } catch {
      return hash(texts.get(file)!); // gone since it was read: texts.get says so (SourceError)
    }
    const e = this.at.get(stamp.path);
    const asRead = now.size === stamp.size && now.mtimeMs === stamp.mtimeMs && now.ino === stamp.ino;
    if (e?.settled && asRead && e.size === now.size && e.mtimeMs === now.mtimeMs && e.ctimeMs === now.ctimeMs && e.ino === now.ino && e.dev === now.dev)
      return e.digest;
    // Read again, checked to be the file bvl read (a SourceError if not), as it was before the cache.
    const digest = hash(texts.get(file)!);
    if (this.at.size >= MAX_ENTRIES) this.at.clear();
    const settled = Math.max(now.mtimeMs, now.ctimeMs) < before - RACY_MS;
    this.at.set(stamp.path, { size: now.size, mtimeMs: now.mtimeMs, ctimeMs: now.ctimeMs, ino: now.ino, dev: now.dev, digest, settled });
    return digest;
  }
}

const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The process's digests: `bvl mcp` asks for the version of the same files on every call. */
const DIGESTS = new FileDigests();

/**
 * The identity of an app and its drafts as files: sha256 over every file read (its name and its
 * text's sha256), in name order. What `bvl mcp` grades and binds patch ids and cursors to, as a
 * draft version binds them on the server: a file changed since is a stale patch id. A file is read
 * again only when its stat changed or it changed too recently to trust its stat (see {@link FileDigests}).
 */
export function filesVersion(published: ArtifactSet, drafts: ArtifactSet | undefined, digests: FileDigests = DIGESTS): string {
  const files: Array<[string, string]> = [];
  for (const texts of [published.texts, drafts?.texts]) if (texts) for (const file of texts.keys()) files.push([file, digests.digest(texts, file)]);
  files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 32);
}
