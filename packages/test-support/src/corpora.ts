// The shared ObjectStack corpora as an extra compatibility check: tests written against them run
// when they are present, skip (loudly, once, from the root `npm test`) in a plain clone, and fail
// under CI (describe-corpora.ts). The repository's own fixtures (fixtures.ts) carry what the suite proves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_NAMES, type CorpusName, corporaNotice, type LocatedCorpora, locateCorpora } from './locate-corpora.mjs';

export { CORPUS_NAMES, type CorpusName, corporaNotice, type LocatedCorpora, locateCorpora };

/** Where the corpora are for this run (BVL_CORPORA, else beside the repository). */
export const corpora: LocatedCorpora = locateCorpora();

/** The path of a corpus stack file (whether or not it exists). */
export function corpusFile(name: CorpusName): string {
  return join(corpora.dir, `${name}.stack.json`);
}

const cache = new Map<CorpusName, unknown>();

/** A corpus stack document, parsed (a fresh deep copy: callers may mutate it). */
export function corpusDoc(name: CorpusName): Record<string, unknown> {
  let doc = cache.get(name);
  if (doc === undefined) {
    doc = JSON.parse(readFileSync(corpusFile(name), 'utf8'));
    cache.set(name, doc);
  }
  return structuredClone(doc) as Record<string, unknown>;
}
