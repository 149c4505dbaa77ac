import { collectStack } from '@bvl/metadata';
import { corpusDoc } from './corpora.ts';

/**
 * app-showcase copied until the stack holds at least `artifacts` artifacts: copy k renames every
 * `showcase_` name to `showcase<k>_`, so references stay consistent within a copy.
 */
export function scaledShowcase(artifacts: number): Record<string, unknown> {
  const text = JSON.stringify(corpusDoc('app-showcase'));
  const perCopy = collectStack(JSON.parse(text)).artifacts.length;
  const copies = Math.ceil(artifacts / perCopy);
  const out: Record<string, unknown[]> = {};
  for (let k = 0; k < copies; k++) {
    const doc = JSON.parse(text.replace(/\bshowcase_/g, `showcase${k}_`)) as Record<string, unknown>;
    for (const [key, value] of Object.entries(doc)) if (Array.isArray(value)) (out[key] ??= []).push(...value);
  }
  return out;
}
