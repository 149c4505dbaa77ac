export { CORPUS_NAMES, type CorpusName, corpora, corporaNotice, corpusDoc, corpusFile, type LocatedCorpora, locateCorpora } from './corpora.ts';
export { EXAMPLE_DIR, exampleDoc, FIXTURE_COUNTS, FIXTURE_NAMES, type FixtureName, fixtureDoc, fixtureFile, REPO_ROOT } from './fixtures.ts';
export { generateBrokenStack } from './generate-broken-stack.ts';
export { generateStack } from './generate-stack.ts';
export { scaleStack } from './scale-stack.ts';
export { DEFAULT_TEST_SEED, EXHAUSTIVE, propertyRuns, sampleEach, TEST_SEED, testSeed } from './test-budget.ts';
