import { childPointer, type Graph, isPlatformObjectName, mayBeHidden, type NavItemDef, pointer } from '@bvl/metadata';
import { defineRule, type Finding } from '../define-rule.ts';
import { didYouMeanText, listing, objectChoices, q, suggest } from '../describe-names.ts';

type TargetKind = 'object' | 'dashboard' | 'report' | 'page';
const TARGET_KEY: Readonly<Record<TargetKind, keyof NavItemDef>> = { object: 'objectName', dashboard: 'dashboardName', report: 'reportName', page: 'pageName' };

function namesOf(graph: Graph, kind: TargetKind): string[] {
  const map = kind === 'object' ? graph.objects : kind === 'dashboard' ? graph.dashboards : kind === 'report' ? graph.reports : graph.pages;
  return [...map.keys()];
}

/**
 * Every navigation item's target resolves — object, view (`viewName` within the object), dashboard,
 * report and page — at any nesting depth, in `navigation` and in `areas`. Checked even when the
 * target collection is empty (ObjectStack commit 85a966f). An item whose `requiresObject` may be
 * unregistered is hidden by ObjectStack on purpose, so it is not judged (only a gate that names no
 * object at all is).
 */
export default defineRule({
  meta: { name: 'nav-target-exists', codes: ['dangling_nav_target'], docs: "Every app navigation item's target exists." },
  run(graph, emit) {
    for (const app of graph.apps.values()) {
      if (app.invalid) continue;
      const roots: Array<[NavItemDef[], string]> = [[app.def.navigation ?? [], pointer('navigation')]];
      (app.def.areas ?? []).forEach((a, i) => roots.push([a.navigation ?? [], pointer('areas', i, 'navigation')]));
      const stack: Array<[NavItemDef, string]> = [];
      for (const [items, base] of roots) for (let i = items.length - 1; i >= 0; i--) stack.push([items[i]!, childPointer(base, i)]);
      while (stack.length > 0) {
        const [item, at] = stack.pop()!;
        // ObjectStack hides an item (and what it nests) whose requiresObject is not registered: not judged.
        if (mayBeHidden(graph.objects, item.requiresObject)) {
          for (const found of unknownGate(graph, app.name, item, at)) emit(found);
          continue;
        }
        const children = item.children ?? [];
        for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, childPointer(at, 'children', i)]);
        for (const found of checkItem(graph, app.name, item, at)) emit(found);
      }
    }
  },
});

/** A `requiresObject` that names no object at all, declared or platform: the item never shows. */
function* unknownGate(graph: Graph, app: string, item: NavItemDef, at: string): Generator<Finding> {
  const gate = item.requiresObject as string;
  if (isPlatformObjectName(gate)) return;
  const path = childPointer(at, 'requiresObject');
  const { clause, candidates } = objectChoices(graph, gate);
  const s = suggest(gate, candidates, path);
  yield {
    code: 'dangling_nav_target',
    artifact: { type: 'app', name: app },
    ref: { type: 'object', name: gate },
    message: `Navigation item ${q(item.id ?? at)} of app ${q(app)} shows only when object ${q(gate)} is registered (requiresObject), and no object of that name exists (${clause}), so the item never shows.${didYouMeanText(s.suggestions)}`,
    fix: s.suggestions?.length ? `Set requiresObject to ${q(s.suggestions[0])}, or drop it.` : 'Drop requiresObject, or name the object the item depends on.',
    path,
    ...s,
  };
}

function* checkItem(graph: Graph, app: string, item: NavItemDef, at: string): Generator<Finding> {
  if (typeof item.type !== 'string' || !Object.hasOwn(TARGET_KEY, item.type)) return;
  const kind = item.type as TargetKind;
  const key = TARGET_KEY[kind] as string;
  const label = `Navigation item ${q(item.id ?? at)} of app ${q(app)}`;
  const target = item[key];
  const artifact = { type: 'app', name: app };
  if (typeof target !== 'string' || target === '') {
    const names = namesOf(graph, kind);
    yield {
      code: 'dangling_nav_target',
      artifact,
      message: `${label} is a ${kind} link with no ${key}, so it leads nowhere (${kind}s: ${listing(names)}).`,
      fix: `Set ${key} on the item to the ${kind} it opens.`,
      path: at,
    };
    return;
  }
  const exists =
    kind === 'object'
      ? graph.objects.has(target)
      : kind === 'dashboard'
        ? graph.dashboards.has(target)
        : kind === 'report'
          ? graph.reports.has(target)
          : graph.pages.has(target);
  if (!exists) {
    const path = childPointer(at, key);
    const choices =
      kind === 'object' ? objectChoices(graph, target) : { clause: `${kind}s: ${listing(namesOf(graph, kind))}`, candidates: namesOf(graph, kind) };
    const s = suggest(target, choices.candidates, path);
    yield {
      code: 'dangling_nav_target',
      artifact,
      ref: { type: kind, name: target },
      message: `${label} opens ${kind} ${q(target)}, which does not exist (${choices.clause}).${didYouMeanText(s.suggestions)}`,
      fix: s.suggestions?.length
        ? `Point ${key} at ${q(s.suggestions[0])}, or create ${kind} ${q(target)}.`
        : `Create ${kind} ${q(target)}, or point the item at an existing ${kind}.`,
      path,
      ...s,
    };
    return;
  }
  if (kind !== 'object' || item.viewName === undefined) return;
  const viewName = item.viewName;
  const byKey = graph.viewsByObject.get(target);
  if (byKey?.has(viewName) || graph.views.get(viewName)?.object === target) return;
  const keys = [...(byKey?.keys() ?? [])].filter((k) => byKey?.get(k)?.kind === 'list');
  const path = childPointer(at, 'viewName');
  const s = suggest(viewName, keys, path);
  yield {
    code: 'dangling_nav_target',
    artifact,
    ref: { type: 'view', name: `${target}.${viewName}` },
    message: `${label} opens view ${q(viewName)} of object ${q(target)}, which has no such view (its list views: ${listing(keys)}).${didYouMeanText(s.suggestions)}`,
    fix: s.suggestions?.length
      ? `Set viewName to ${q(s.suggestions[0])}.`
      : `Add list view ${q(viewName)} to object ${q(target)}'s view container, or drop viewName to open its default list.`,
    path,
    ...s,
  };
}
