import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { SourceError } from '@bvl/metadata';

/** The folder a local server reads and writes in, resolved once (symlinks and all). */
export interface Confinement {
  /** The folder as given (its name in messages). */
  readonly root: string;
  /** Checks a path an agent gave (relative to the folder, or absolute): throws unless it resolves inside. */
  check(path: string): Promise<void>;
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest (a file not written yet). */
async function realOrNearest(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const parent = dirname(path);
    if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === path) throw e;
    return resolve(await realOrNearest(parent), relative(parent, path));
  }
}

const inside = (root: string, real: string) => {
  const rel = relative(root, real);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * `bvl mcp` serves one folder: every path a tool is given — `..`, an absolute path, a symbolic link
 * anywhere along it — is resolved to its real path and refused unless it lies inside that folder,
 * before anything is read or written. The refusal names the path as given, never what is there.
 * (Inside a folder, readSource reads only regular files and real subfolders, so a link in an app
 * folder cannot lead out either.)
 */
export function confineTo(root: string): Confinement {
  let real: Promise<string> | undefined;
  return {
    root,
    async check(path) {
      real ??= realpath(root);
      const base = await real;
      let target: string;
      try {
        target = await realOrNearest(resolve(base, path));
      } catch (e) {
        throw new SourceError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'it cannot be resolved'}`);
      }
      if (!inside(base, target))
        throw new SourceError(
          `${path} is outside the folder bvl mcp serves (${root}): it reads and writes only inside that folder (a path there, relative to it; no "..", absolute path or symbolic link leading out)`,
        );
    },
  };
}
