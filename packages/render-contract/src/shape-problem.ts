import type { Arity, QueryShape } from './component-registry.ts';

/** Which count of a widget's query falls outside what its component can show. */
export interface ShapeProblem {
  readonly part: 'dimensions' | 'measures' | 'columns';
  readonly count: number;
  readonly arity: Arity;
}

/** The first part of `shape` that `dimensions`/`measures` counts violate, or undefined when it fits. */
export function shapeProblem(shape: QueryShape | undefined, dimensions: number, measures: number): ShapeProblem | undefined {
  if (!shape) return undefined;
  const parts = [
    ['dimensions', dimensions, shape.dimensions],
    ['measures', measures, shape.measures],
    ['columns', dimensions + measures, shape.columns],
  ] as const;
  for (const [part, count, arity] of parts) {
    if (!arity) continue;
    if (count < (arity.min ?? 0) || (arity.max !== undefined && count > arity.max)) return { part, count, arity };
  }
  return undefined;
}

/** "exactly 1", "at least 1", "0 to 2", "no" — for messages. */
export function describeArity(arity: Arity): string {
  const min = arity.min ?? 0;
  if (arity.max === undefined) return `at least ${min}`;
  if (arity.max === 0) return 'no';
  if (min === arity.max) return `exactly ${min}`;
  return `${min} to ${arity.max}`;
}
