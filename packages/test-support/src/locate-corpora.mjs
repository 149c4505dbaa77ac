// The one place that knows where the shared ObjectStack corpora are. Plain JavaScript so that the
// root `npm test` can run it with node before the suites start (`node …/locate-corpora.mjs` prints
// the skip line once, or fails under CI); the vitest helpers in corpora.ts import it too.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The three ObjectStack example stacks of the compatibility corpus. */
export const CORPUS_NAMES = /** @type {const} */ (['app-todo', 'app-crm', 'app-showcase']);

/** The repository root (this file is packages/test-support/src/locate-corpora.mjs). */
export const REPO_ROOT = resolve(import.meta.dirname, '../../..');

/** Whether an environment flag is on (`CI=true`, `CI=1`; not `''`, `0`, `false`). */
const on = (value) => value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';

/**
 * Where the corpora are: `BVL_CORPORA` when set, else `../shared/corpora/objectstack` beside the
 * repository root. `required` is true under CI or when BVL_CORPORA names them explicitly: then their
 * absence is a failure, not a skip.
 */
export function locateCorpora(env = process.env) {
  const explicit = env.BVL_CORPORA !== undefined && env.BVL_CORPORA !== '';
  const dir = explicit ? resolve(env.BVL_CORPORA) : resolve(REPO_ROOT, '..', 'shared', 'corpora', 'objectstack');
  const missing = CORPUS_NAMES.filter((name) => !existsSync(join(dir, `${name}.stack.json`)));
  return { dir, present: missing.length === 0, missing, required: explicit || on(env.CI) };
}

/** One line saying what happened to the corpora tests and how to change it. */
export function corporaNotice(located = locateCorpora()) {
  if (located.present) return `ObjectStack corpora: ${located.dir} (compatibility tests run)`;
  const what = `the ObjectStack corpora are not at ${located.dir} (missing ${located.missing.map((n) => `${n}.stack.json`).join(', ')})`;
  return located.required
    ? `FAILED: ${what}; CI (or BVL_CORPORA) requires them — set BVL_CORPORA to the folder that holds them`
    : `SKIPPED: ObjectStack corpora compatibility tests — ${what}; set BVL_CORPORA=<folder> to run them`;
}

// `node locate-corpora.mjs`: silent when the corpora are present; one loud line when they are not,
// and exit 1 when they are required.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const located = locateCorpora();
  if (!located.present) {
    console.error(`!!! ${corporaNotice(located)}`);
    if (located.required) process.exitCode = 1;
  }
}
