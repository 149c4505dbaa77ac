import { contentHash } from '@bvl/platform';
import type { Blueprint, CaseFile } from './case-file.ts';

/**
 * The version of a golden case: sha256 over the stable JSON (keys sorted) of everything that is
 * graded or staged — name, prompt, tags, maxRounds, budget, assertions, defect sets and the blueprint — so
 * two runs compare like with like, and a reformatted file keeps its version.
 */
export function caseVersion(c: CaseFile & { readonly blueprint: Blueprint }): string {
  const { name, prompt, prompts, tags, maxRounds, budget, assertions, defects, blueprint, origin } = c;
  // `origin`, `prompts` and `budget` join the hash only when set, so a case without them keeps the version it had.
  return contentHash({
    name,
    prompt,
    tags,
    maxRounds,
    assertions,
    defects,
    blueprint,
    ...(origin ? { origin } : {}),
    ...(prompts ? { prompts } : {}),
    ...(budget ? { budget } : {}),
  });
}
