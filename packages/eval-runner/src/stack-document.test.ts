import { collectStack, type RawArtifact } from '@bvl/metadata';
import { verify } from '@bvl/verify';
import { beforeAll, describe, expect, it } from 'vitest';
import { defective, GOLDEN_DIR, GOLDEN_NAMES } from '../test/golden-support.ts';
import { type GoldenCase, loadGoldenCases } from './golden-case.ts';
import { stackDocument } from './stack-document.ts';

let cases: GoldenCase[];
beforeAll(async () => {
  cases = await loadGoldenCases(GOLDEN_DIR);
});

const rows = (as: readonly RawArtifact[]) =>
  as
    .map((a) => ({ type: a.type, name: a.name, body: a.body, viewKind: a.viewKind, object: a.object, key: a.key }))
    .sort((a, b) => (`${a.type} ${a.name}` < `${b.type} ${b.name}` ? -1 : 1));

describe.each(GOLDEN_NAMES)('stackDocument on golden case %s', (name) => {
  it('writes artifacts back as a stack that loads into the same artifacts, clean as before', () => {
    const c = cases.find((x) => x.name === name)!;
    const loaded = collectStack(c.blueprint, { draft: true });
    const doc = stackDocument(loaded.artifacts);
    const again = collectStack(doc, { draft: true });
    expect(again.problems).toEqual([]);
    expect(rows(again.artifacts)).toEqual(rows(loaded.artifacts));
    expect(verify(again).issues).toEqual([]);
  });

  it('keeps a defect as it is: the same issues before and after the round trip', () => {
    const c = cases.find((x) => x.name === name)!;
    for (const defect of Object.keys(c.defects)) {
      const loaded = collectStack(defective(c, defect), { draft: true });
      const codes = (set: ReturnType<typeof collectStack>) => verify(set).issues.map((i) => `${i.code} ${i.artifact.type} ${i.artifact.name}`);
      expect(codes(collectStack(stackDocument(loaded.artifacts), { draft: true })), defect).toEqual(codes(loaded));
    }
  });
});
