import { allFieldNames, type Graph, type ObjectNode } from '@bvl/metadata';
import type { Finding } from './define-rule.ts';
import { didYouMeanText, listing, q, suggest } from './describe-names.ts';
import { resolvePath } from './resolve-path.ts';

/** Context for an unknown_field finding: who mentions the field, where, and in what slot. */
export interface FieldMentionContext {
  readonly artifact: { readonly type: string; readonly name: string };
  /** "View \"x.y\"", "Dataset \"d\" dimension \"m\"", … — the subject of the message, built only when there is one (most fields resolve). */
  readonly subject: () => string;
  readonly slot: string;
  readonly path: string;
  /** False when the path names more than this field (no whole-value patch). */
  readonly patchable?: boolean | undefined;
  /**
   * `unknown_display_field` for a slot the renderer simply leaves out when its field is missing
   * (a record title, highlight strip, stage, form section field: ObjectStack only warns);
   * `unknown_field` (default) where the missing field breaks a read.
   */
  readonly code?: 'unknown_field' | 'unknown_display_field' | undefined;
}

/**
 * An `unknown_field` finding when `field` (possibly dotted) does not resolve on `object`, else
 * undefined. Fields of invalid objects are not judged.
 */
export function checkField(graph: Graph, object: ObjectNode, field: string, ctx: FieldMentionContext): Finding | undefined {
  // (A missing display field degrades the page; a missing read field breaks it: see FieldMentionContext.code.)
  if (object.invalid) return undefined;
  const r = resolvePath(graph, object, field);
  if (r.ok || r.reason === 'opaque') return undefined;
  const candidates = allFieldNames(r.object);
  const isWhole = r.segment === field;
  const s = suggest(r.segment, candidates, isWhole && ctx.patchable !== false ? ctx.path : undefined);
  const why =
    r.reason === 'unknown'
      ? `object ${q(r.object.name)} has no field ${q(r.segment)}`
      : r.reason === 'not_relation'
        ? `${q(r.segment)} on object ${q(r.object.name)} is not a lookup, so ${q(field)} cannot follow it`
        : r.reason === 'unknown_target'
          ? `lookup ${q(r.segment)} on object ${q(r.object.name)} points at an object that does not exist`
          : `${q(field)} takes more than 3 relationship hops`;
  const display = ctx.code === 'unknown_display_field';
  return {
    code: ctx.code ?? 'unknown_field',
    artifact: ctx.artifact,
    ref: { type: 'object', name: r.object.name, member: r.segment },
    message: `${ctx.subject()} names field ${q(field)} in its ${ctx.slot}, but ${why} (it has: ${listing(candidates)})${display ? ', so the renderer leaves it out' : ''}.${didYouMeanText(s.suggestions)}`,
    fix: s.suggestions?.length
      ? `Use ${q(s.suggestions[0])} instead of ${q(r.segment)}, or add field ${q(r.segment)} to object ${q(r.object.name)}.`
      : `Add field ${q(r.segment)} to object ${q(r.object.name)}, or remove it from the ${ctx.slot}.`,
    path: ctx.path,
    ...s,
  };
}
