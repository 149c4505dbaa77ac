import { readFileSync, statSync } from 'node:fs';

/** A source that could not be read at all (missing, unreadable, not JSON, changed while read): the CLI exits 2. */
export class SourceError extends Error {
  override readonly name = 'SourceError';
}

/** A file as bvl read it from disk: its text is read again when asked for, not held. */
export interface FileStamp {
  /** Absolute path. */
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  /** Characters of the text read. */
  readonly length: number;
}

/**
 * The texts of the files a set was read from (file name as `source.file` carries it → text). A
 * text read from disk is not held: it is read again, synchronously, when asked for (locations and
 * fixes ask for the files that have issues), and checked to be the file bvl read — same size,
 * mtime, inode and length — or a {@link SourceError} says the file changed since. Texts bvl was
 * handed (standard input, overrides) are held as they are.
 */
export class SourceTexts implements ReadonlyMap<string, string> {
  private readonly at = new Map<string, string | FileStamp>();

  /** A text held as it is. */
  hold(file: string, text: string): this {
    this.at.set(file, text);
    return this;
  }

  /** A text of `length` characters just read from `path` (absolute, `info` its stat before the read), to read again when asked for. */
  stamp(file: string, path: string, info: { readonly size: number; readonly mtimeMs: number; readonly ino: number }, length: number): this {
    this.at.set(file, { path, size: info.size, mtimeMs: info.mtimeMs, ino: info.ino, length });
    return this;
  }

  /** Every file of `texts` (a later call's file wins), still unread. */
  addAll(texts: ReadonlyMap<string, string>): this {
    if (texts instanceof SourceTexts) for (const [file, e] of texts.at) this.at.set(file, e);
    else for (const [file, text] of texts) this.at.set(file, text);
    return this;
  }

  get size(): number {
    return this.at.size;
  }

  has(file: string): boolean {
    return this.at.has(file);
  }

  /** How `file` was read from disk (its path, and its size, mtime and inode before the read), or undefined: a held text, or no such file. */
  stampOf(file: string): Readonly<FileStamp> | undefined {
    const e = this.at.get(file);
    return typeof e === 'object' ? e : undefined;
  }

  get(file: string): string | undefined {
    const e = this.at.get(file);
    return e === undefined || typeof e === 'string' ? e : reread(file, e);
  }

  keys(): MapIterator<string> {
    return this.at.keys();
  }

  *values(): MapIterator<string> {
    for (const file of this.at.keys()) yield this.get(file)!;
  }

  *entries(): MapIterator<[string, string]> {
    for (const file of this.at.keys()) yield [file, this.get(file)!];
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (text: string, file: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown): void {
    for (const [file, text] of this.entries()) fn.call(thisArg, text, file, this);
  }
}

function reread(file: string, s: FileStamp): string {
  const changed = new SourceError(`${file} changed on disk while bvl was working on it; run bvl again`);
  let text: string;
  try {
    const now = statSync(s.path);
    if (now.size !== s.size || now.mtimeMs !== s.mtimeMs || now.ino !== s.ino) throw changed;
    text = readFileSync(s.path, 'utf8');
  } catch {
    throw changed;
  }
  if (text.length !== s.length) throw changed;
  return text;
}

/**
 * The texts of several sets as one map, a later set's text of a file winning (as `new Map([...a,
 * ...b])` would), none read until asked for.
 */
export function textsOf(sets: ReadonlyArray<{ readonly texts?: ReadonlyMap<string, string> | undefined } | undefined>): SourceTexts {
  const out = new SourceTexts();
  for (const set of sets) if (set?.texts) out.addAll(set.texts);
  return out;
}
