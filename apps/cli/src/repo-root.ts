import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository root above `dir` (the nearest folder holding `.git`), or `dir` itself when there is none. */
export function repoRoot(dir: string): string {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return resolve(dir);
  }
}

/** Paths relative to the repository root (SARIF SRCROOT, GitHub annotations), from file names relative to cwd. */
export function repoPaths(cwd: string): { readonly root: string; readonly rootUri: string; readonly relative: (file: string) => string | undefined } {
  const root = repoRoot(cwd);
  return {
    root,
    rootUri: `${pathToFileURL(root).href}/`,
    relative: (file: string) => {
      const rel = relative(root, resolve(cwd, file));
      if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
      return rel.split(sep).join('/');
    },
  };
}
