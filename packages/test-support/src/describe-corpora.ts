// vitest's side of the corpora (a separate entry, `@bvl/test-support/vitest`, so scripts such as the
// bench can use the fixtures without loading vitest).
import { describe, it } from 'vitest';
import { corpora } from './corpora.ts';
import { corporaNotice } from './locate-corpora.mjs';

/**
 * `describe` for tests that read the corpora. Present: the block runs. Absent: one skipped test
 * says why (a plain clone), or one failing test does (CI, or BVL_CORPORA set). The body is never
 * called when they are absent, so it may read them at collection time.
 */
export function describeCorpora(title: string, body: () => void): void {
  if (corpora.present) describe(title, body);
  else if (corpora.required)
    describe(title, () => {
      it('finds the ObjectStack corpora', () => {
        throw new Error(corporaNotice(corpora));
      });
    });
  else describe.skip(title, () => it(corporaNotice(corpora), () => {}));
}
