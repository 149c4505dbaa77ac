import { type BuildIssue, type JsonPatchOp, makeIssue } from '@bvl/build-issue';
import { clearWinner, didYouMean, type Graph, pointer, type ViewNode } from '@bvl/metadata';
import { bindingSets, type ComponentRegistry, isRegistered, missingBindings as unboundSet, type ViewTypeEntry } from './component-registry.ts';
import type { ComponentSchema } from './component-schema.ts';
import { DEFAULT_REGISTRY } from './renderer-profiles.ts';
import { bindProps, translateView, VIEW_BASE_PROPS, viewBody, viewTypeOf } from './translate-view.ts';

/** A translation and what is wrong with it. */
export interface Checked {
  readonly schema: ComponentSchema;
  readonly issues: BuildIssue[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const quoteList = (xs: readonly string[]): string => xs.join(', ');

/**
 * Translates a view and judges the result against the renderer profile: a type it does not draw
 * (`typeless_schema`, the red box — or `view_type_fallback` where the renderer draws a grid
 * instead), a component the registry does not register (`unknown_component`), a component missing
 * the binding it needs (`layout_without_binding`), or a binding the renderer picks by itself
 * (`layout_binding_inferred`). Pure and total.
 */
export function checkView(view: ViewNode, graph: Graph, registry: ComponentRegistry = DEFAULT_REGISTRY): Checked {
  const schema = translateView(view, graph, registry);
  return { schema, issues: judgeView(view, graph, registry, schema.props) };
}

/**
 * The issues of {@link checkView} without the component schema: what they look at of the
 * translation is the type's binding props, so only those are made (fields of columns and sections
 * are not resolved). Where a binding prop shares a name with another prop of the translation, the
 * whole translation is made, so the props read are always translateView's. L2's pass over a graph.
 */
export function viewIssues(view: ViewNode, graph: Graph, registry: ComponentRegistry = DEFAULT_REGISTRY): BuildIssue[] {
  return judgeView(view, graph, registry);
}

/** The props of the view's translation its binding checks read: `schemaProps` when there, else the type's bindings only. */
function bindingProps(view: ViewNode, graph: Graph, registry: ComponentRegistry, entry: ViewTypeEntry): Readonly<Record<string, unknown>> {
  if (sharesBaseProp(registry, entry)) return translateView(view, graph, registry).props;
  if (!entry.block || !entry.bind) return NO_PROPS;
  const props: Record<string, unknown> = {};
  // Set or not is all the checks ask of a bound field (resolveFieldOf gives every name a value).
  bindProps(viewBody(view), view.object ? graph.objects.get(view.object) : undefined, entry, props, boundField);
  return props;
}

const boundField = (): unknown => true;
const NO_PROPS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Whether a binding prop of the type (bound or required) is also a prop translateView sets otherwise: per registry entry, once. */
const sharing = new WeakMap<ViewTypeEntry, WeakMap<ComponentRegistry, boolean>>();
function sharesBaseProp(registry: ComponentRegistry, entry: ViewTypeEntry): boolean {
  let byRegistry = sharing.get(entry);
  if (!byRegistry) sharing.set(entry, (byRegistry = new WeakMap()));
  let shares = byRegistry.get(registry);
  if (shares === undefined) {
    const read = [...bindingSets(registry.components[entry.component]).flat(), ...Object.keys(entry.bind ?? {})];
    byRegistry.set(registry, (shares = read.some((p) => VIEW_BASE_PROPS.has(p))));
  }
  return shares;
}

function judgeView(view: ViewNode, graph: Graph, registry: ComponentRegistry, schemaProps?: Readonly<Record<string, unknown>>): BuildIssue[] {
  const issues: BuildIssue[] = [];
  const body = viewBody(view);
  const family = registry.views[view.kind];
  const { type, entry, fallback } = viewTypeOf(view, registry);
  const artifact = { type: 'view', name: view.name };
  const base = { artifact, draft: view.draft };

  if (!entry || fallback) {
    const types = Object.keys(family.types);
    const shown = typeof type === 'string' ? `"${type}"` : (JSON.stringify(type) ?? String(type));
    const winner = typeof type === 'string' ? clearWinner(type, types) : undefined;
    const winnerEntry = winner ? family.types[winner] : undefined;
    // Patch to the near-miss only when its block is there; otherwise the patch would trade this issue for layout_without_binding.
    const value =
      winner && winnerEntry && (!needsBinding(registry, winnerEntry) || isRecord(body[winnerEntry.block ?? ''])) ? winner : (fallback?.as ?? family.default);
    const why = type === 'list' && view.kind === 'list' ? ' ("list" is a viewKind, not a list view type)' : '';
    const what = view.kind === 'list' ? 'records' : 'form';
    issues.push(
      makeIssue({
        code: fallback ? 'view_type_fallback' : 'typeless_schema',
        ...base,
        message: fallback
          ? `View "${view.name}" has type ${shown}, which is not a ${view.kind} view type${why}. ${registry.name} has no case for it, so ${fallback.does}: the page shows a plain ${fallback.as}, not what the type promised.`
          : `View "${view.name}" has type ${shown}, which is not a ${view.kind} view type${why}. The ${view.kind === 'list' ? 'ListView switch' : 'form renderer'} of ${registry.name} has no case for it, so the schema it builds has no component type and the page shows a red "Unknown component type" box instead of the ${what}.`,
        fix: `Set "type" of view "${view.name}" to "${value}" (${view.kind} view types: ${quoteList(types)}).`,
        path: '/type',
        suggestions: typeof type === 'string' ? didYouMean(type, types) : [],
        patch: [{ op: 'replace', path: '/type', value }],
      }),
    );
    if (!entry) return issues;
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
    return issues;
  }
  if (!fallback) issues.push(...bindingIssues(view, graph, registry, schemaProps ?? bindingProps(view, graph, registry, entry), String(type), entry));
  return issues;
}

function needsBinding(registry: ComponentRegistry, entry: ViewTypeEntry): boolean {
  return bindingSets(registry.components[entry.component]).length > 0;
}

/** layout_without_binding: one issue for a missing block, or one per missing key of a present block; layout_binding_inferred for a guess. */
function bindingIssues(
  view: ViewNode,
  graph: Graph,
  registry: ComponentRegistry,
  props: Readonly<Record<string, unknown>>,
  type: string,
  entry: ViewTypeEntry,
): BuildIssue[] {
  const component = registry.components[entry.component];
  const blockName = entry.block;
  const missing = unboundSet(component, (p) => props[p] !== undefined);
  // Bound as it should be, nothing guessed: most views.
  if ((!missing || !blockName) && !isRecord(props.inferred)) return [];
  const base = { artifact: { type: 'view', name: view.name }, draft: view.draft };
  const inferred = isRecord(props.inferred) ? (props.inferred as Record<string, string>) : {};
  if (!missing || !blockName) {
    return Object.entries(inferred).map(([prop, field]) => {
      const from = entry.bind?.[prop]?.from ?? prop;
      return makeIssue({
        code: 'layout_binding_inferred',
        ...base,
        message: `View "${view.name}" is a ${type} view that binds no ${from}, so ${registry.name} picks field "${field}" of "${view.object}" by itself (its stageField, or a field named status/stage/state/phase). The ${type} draws, but on a field nobody chose.`,
        fix: `Set ${blockName}.${from} of view "${view.name}" to the field it should use (e.g. "${field}").`,
        path: pointer(blockName ?? '', from),
        patch: [
          isRecord(viewBody(view)[blockName ?? ''])
            ? { op: 'add', path: pointer(blockName ?? '', from), value: field }
            : { op: 'add', path: pointer(blockName ?? ''), value: { [from]: field } },
        ],
      });
    });
  }
  const body = viewBody(view);
  const object = view.object ? graph.objects.get(view.object) : undefined;
  const binds = missing.map((prop) => {
    const spec = entry.bind?.[prop];
    // Declared fields only: every object has system lookups and timestamps, which would make no binding unambiguous.
    const candidates =
      object && spec?.fieldTypes ? [...object.fields.values()].filter((f) => !f.invalid && spec.fieldTypes?.includes(f.def.type)).map((f) => f.name) : [];
    return { prop, from: spec?.from ?? prop, fallback: spec?.fallback, candidates };
  });
  const fallbackText = (b: (typeof binds)[number]): string => (b.fallback ? `the literal field name "${b.fallback}"` : 'a default field name');
  const outcome = (b: (typeof binds)[number]): string =>
    component?.missing ? component.missing.does : `the renderer silently falls back to ${fallbackText(b)} and shows an empty or wrong ${type}`;
  const candidateText = (b: (typeof binds)[number]): string =>
    b.candidates.length
      ? ` (candidate fields of "${view.object}": ${quoteList(b.candidates)})`
      : object
        ? ` ("${view.object}" has no ${b.from === 'groupByField' ? 'groupable' : b.from.includes('Date') ? 'date' : 'such'} field yet)`
        : '';
  const alternatives =
    bindingSets(component).length > 1
      ? ` (or ${bindingSets(component)
          .map((set) => set.map((p) => entry.bind?.[p]?.from ?? p).join(' + '))
          .join(', or ')})`
      : '';
  if (!isRecord(body[blockName])) {
    const keys = binds.map((b) => b.from);
    return [
      makeIssue({
        code: 'layout_without_binding',
        ...base,
        message: `View "${view.name}" is a ${type} view with no "${blockName}" block, so nothing binds its ${quoteList(keys)}${alternatives}: ${binds
          .map(outcome)
          .filter((x, i, xs) => xs.indexOf(x) === i)
          .join('; ')}.`,
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
      message: `The "${blockName}" block of view "${view.name}" has no ${b.from}${alternatives}, so the ${type} binds no field for it: ${outcome(b)}.`,
      fix: `Set ${blockName}.${b.from} of view "${view.name}" to a field${candidateText(b)}.`,
      path: pointer(blockName, b.from),
      ...(patch ? { patch } : {}),
    });
  });
}
