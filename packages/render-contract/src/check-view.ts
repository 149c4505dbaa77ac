import { type BuildIssue, type JsonPatchOp, makeIssue } from '@bvl/build-issue';
import { clearWinner, didYouMean, type Graph, pointer, type ViewNode } from '@bvl/metadata';
import { type ComponentRegistry, isRegistered } from './component-registry.ts';
import type { ComponentSchema } from './component-schema.ts';
import { DEFAULT_REGISTRY } from './default-registry.ts';
import { translateView, viewBody, viewTypeOf } from './translate-view.ts';

/** A translation and what is wrong with it. */
export interface Checked {
  readonly schema: ComponentSchema;
  readonly issues: BuildIssue[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const quoteList = (xs: readonly string[]): string => xs.join(', ');

/**
 * Translates a view and judges the result: no component for its type (`typeless_schema`, with a
 * patch to a valid type), a component the registry does not register (`unknown_component`), or a
 * component missing a binding prop it requires (`layout_without_binding`). Pure and total.
 */
export function checkView(view: ViewNode, graph: Graph, registry: ComponentRegistry = DEFAULT_REGISTRY): Checked {
  const schema = translateView(view, graph, registry);
  const issues: BuildIssue[] = [];
  const body = viewBody(view);
  const family = registry.views[view.kind];
  const types = Object.keys(family.types);
  const { type, entry } = viewTypeOf(view, registry);
  const artifact = { type: 'view', name: view.name };
  const base = { artifact, draft: view.draft };

  if (!entry) {
    const shown = typeof type === 'string' ? `"${type}"` : (JSON.stringify(type) ?? String(type));
    const winner = typeof type === 'string' ? clearWinner(type, types) : undefined;
    const winnerEntry = winner ? family.types[winner] : undefined;
    // Patch to the near-miss only when its block is there; otherwise the patch would trade this issue for layout_without_binding.
    const value =
      winner && winnerEntry && (!needsBinding(registry, winnerEntry.component) || isRecord(body[winnerEntry.block ?? ''])) ? winner : family.default;
    const why = type === 'list' && view.kind === 'list' ? ' ("list" is a viewKind, not a list view type)' : '';
    issues.push(
      makeIssue({
        code: 'typeless_schema',
        ...base,
        message: `View "${view.name}" has type ${shown}, which is not a ${view.kind} view type${why}. The ${view.kind === 'list' ? 'ListView switch' : 'form renderer'} has no case for it, so the schema it builds has no component type and the page shows a red "Unknown component type" box instead of the ${view.kind === 'list' ? 'records' : 'form'}.`,
        fix: `Set "type" of view "${view.name}" to "${value}" (${view.kind} view types: ${quoteList(types)}).`,
        path: '/type',
        suggestions: typeof type === 'string' ? didYouMean(type, types) : [],
        patch: [{ op: 'replace', path: '/type', value }],
      }),
    );
    return { schema, issues };
  }
  if (!isRegistered(registry, entry.component)) {
    issues.push(
      makeIssue({
        code: 'unknown_component',
        ...base,
        message: `View "${view.name}" of type "${String(type)}" translates to component "${entry.component}", which the ${registry.name} component registry does not register, so the page shows a red "Unknown component type" box.`,
        fix: `Give view "${view.name}" a type whose component is registered, or register "${entry.component}" in the ${registry.name} registry.`,
        path: '/type',
      }),
    );
    return { schema, issues };
  }
  issues.push(...missingBindings(view, graph, registry, schema, String(type)));
  return { schema, issues };
}

function needsBinding(registry: ComponentRegistry, component: string): boolean {
  return (registry.components[component]?.requiredProps?.length ?? 0) > 0;
}

/** layout_without_binding: one issue for a missing block, or one per missing key of a present block. */
function missingBindings(view: ViewNode, graph: Graph, registry: ComponentRegistry, schema: ComponentSchema, type: string): BuildIssue[] {
  const { entry } = viewTypeOf(view, registry);
  const component = entry ? registry.components[entry.component] : undefined;
  const missing = (component?.requiredProps ?? []).filter((p) => schema.props[p] === undefined);
  if (!entry || missing.length === 0) return [];
  const body = viewBody(view);
  const blockName = entry.block;
  const object = view.object ? graph.objects.get(view.object) : undefined;
  const binds = missing.map((prop) => {
    const spec = entry.bind?.[prop];
    // Declared fields only: every object has system lookups and timestamps, which would make no binding unambiguous.
    const candidates =
      object && spec?.fieldTypes ? [...object.fields.values()].filter((f) => !f.invalid && spec.fieldTypes?.includes(f.def.type)).map((f) => f.name) : [];
    return { prop, from: spec?.from ?? prop, fallback: spec?.fallback, candidates };
  });
  const fallbackText = (b: (typeof binds)[number]): string => (b.fallback ? `the literal field name "${b.fallback}"` : 'a default field name');
  const candidateText = (b: (typeof binds)[number]): string =>
    b.candidates.length
      ? ` (candidate fields of "${view.object}": ${quoteList(b.candidates)})`
      : object
        ? ` ("${view.object}" has no ${b.from === 'groupByField' ? 'groupable' : 'date'} field yet)`
        : '';
  const base = { artifact: { type: 'view', name: view.name }, draft: view.draft };
  if (!blockName) return [];
  if (!isRecord(body[blockName])) {
    const keys = binds.map((b) => b.from);
    return [
      makeIssue({
        code: 'layout_without_binding',
        ...base,
        message: `View "${view.name}" is a ${type} view with no "${blockName}" block, so nothing binds its ${quoteList(keys)}: the renderer silently falls back to ${binds.map(fallbackText).join(' and ')} and shows an empty or wrong ${type}.`,
        fix: `Add a "${blockName}" block to view "${view.name}" with ${binds.map((b) => `${b.from}${candidateText(b)}`).join('; ')}, or set its type to "grid".`,
        path: pointer(blockName),
      }),
    ];
  }
  return binds.map((b) => {
    const only = b.candidates.length === 1 ? b.candidates[0] : undefined;
    const patch: JsonPatchOp[] | undefined = only && binds.length === 1 ? [{ op: 'add', path: pointer(blockName, b.from), value: only }] : undefined;
    return makeIssue({
      code: 'layout_without_binding',
      ...base,
      message: `The "${blockName}" block of view "${view.name}" has no ${b.from}, so the ${type} binds no field for it: the renderer silently falls back to ${fallbackText(b)} and shows an empty or wrong ${type}.`,
      fix: `Set ${blockName}.${b.from} of view "${view.name}" to a field${candidateText(b)}.`,
      path: pointer(blockName, b.from),
      ...(patch ? { patch } : {}),
    });
  });
}
