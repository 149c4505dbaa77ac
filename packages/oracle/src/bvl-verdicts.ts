import { collectStack } from '@bvl/metadata';
import { verify } from '@bvl/verify';
import { docKeyOfPointer, type StackDoc } from './doc-key.ts';
import type { Verdict } from './objectstack.ts';

/** bvl's L1 + L2 errors on a stack document (default target), each on the stack entry it came from. */
export function bvlVerdicts(doc: StackDoc): Verdict[] {
  const v = verify(collectStack(doc));
  return v.issues
    .filter((i) => i.severity === 'error')
    .map((i) => {
      const source = v.graph.sourceOf(i.artifact.type, i.artifact.name) ?? v.graph.sourceOf(i.artifact.type, i.artifact.name.split('#')[0]!);
      return { key: source ? docKeyOfPointer(doc, source.pointer) : 'stack', signature: `bvl ${i.code}`, message: i.message };
    });
}
