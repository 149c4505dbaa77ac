import { collectStack, type RawArtifact } from '@bvl/metadata';
import type { AgentArtifactType } from './agent-tools.ts';

/** The stack key each artifact type is written under. */
const STACK_KEY = { object: 'objects', view: 'views', dashboard: 'dashboards', dataset: 'datasets', app: 'apps', seed: 'data' } as const satisfies Record<
  AgentArtifactType,
  string
>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Turns one `stage_draft` body into the artifacts it stages, through `collectStack` — so a view
 * container expands into `<object>.<key>` views and a seed is named by its object exactly as when
 * the app is loaded from files. A missing name is filled in from `name`; a body whose own name
 * disagrees, or that the loader cannot read, is an error and stages nothing. Pure.
 */
export function collectDraft(
  type: AgentArtifactType,
  name: string,
  body: Record<string, unknown>,
): { readonly ok: true; readonly artifacts: RawArtifact[] } | { readonly ok: false; readonly error: string } {
  let entry: Record<string, unknown> = body;
  let seedName: string | undefined;
  if (type === 'seed') {
    const object = name.replace(/#\d+$/, '');
    if (body.object !== undefined && body.object !== object)
      return { ok: false, error: `the seed's object is ${JSON.stringify(body.object)} but name is ${JSON.stringify(name)}: a seed is named by its object` };
    entry = { ...body, object };
    if (name !== object) seedName = name;
  } else if (type === 'view') {
    const item = isRecord(body.config);
    if (item && body.name !== undefined && body.name !== name)
      return { ok: false, error: `the view item's name is ${JSON.stringify(body.name)} but name is ${JSON.stringify(name)}` };
    if (item && body.name === undefined) entry = { ...body, name };
    const container = !item && ['list', 'form', 'listViews', 'formViews'].some((k) => k in body);
    // A container is staged under its object's name; without a binding of its own it takes that name.
    if (container && body.object === undefined && !name.includes('.')) entry = { ...body, object: name };
  } else {
    if (body.name !== undefined && body.name !== name)
      return { ok: false, error: `the ${type}'s body names it ${JSON.stringify(body.name)} but name is ${JSON.stringify(name)}` };
    entry = { ...body, name };
  }
  // The record form `{views: {<name>: body}}` names what the body does not (seeds are lists only).
  const set = collectStack({ [STACK_KEY[type]]: type === 'seed' ? [entry] : { [name]: entry } }, { draft: true });
  if (set.problems.length > 0) {
    const what = set.problems.slice(0, 5).map((p) => `${p.type} ${p.name}${p.path ? ` at ${p.path}` : ''}: ${p.message}${p.fix ? ` ${p.fix}` : ''}`);
    return { ok: false, error: `nothing staged: ${what.join(' | ')}` };
  }
  if (set.artifacts.length === 0) return { ok: false, error: `nothing staged: the body holds no ${type}` };
  return { ok: true, artifacts: seedName ? set.artifacts.map((a) => ({ ...a, name: seedName })) : set.artifacts };
}
