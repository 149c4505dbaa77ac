import { type ArtifactType, collectStack, type RawArtifact, STACK_KEYS } from '@bvl/metadata';
import { ApiError } from './to-error-response.ts';

const STACK_KEY = Object.fromEntries(STACK_KEYS.map(([key, type]) => [type, key])) as Record<ArtifactType, string>;

/** A JSON pointer into the body as the dotted path the API's problem lists use (`/a/0` → `body.a.0`). */
const dotted = (pointer: string) =>
  [
    'body',
    ...(pointer === ''
      ? []
      : pointer
          .slice(1)
          .split('/')
          .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))),
  ].join('.');

/**
 * One artifact body as in the stack format → the drafts it stages, exactly as a stack file would
 * load (`collectStack`): a view container expands to its `<object>.<key>` views, an object's
 * `listViews` become views too, a seed is named by its object. The body must name what the path
 * names (or leave the name out: the path gives it); a body the loader refuses (not an object,
 * nested absurdly deep, holding a NUL) is a 400 listing why, and nothing is staged. Pure.
 */
export function expandArtifact(type: ArtifactType, name: string, body: unknown): RawArtifact[] {
  const key = STACK_KEY[type];
  // Record form ({name: body}) lets the path name a body that has none; seeds only load as a list.
  const doc = type === 'seed' ? { [key]: [body] } : { [key]: { [name]: body } };
  const set = collectStack(doc, { draft: true });
  if (set.problems.length > 0)
    throw new ApiError(
      'invalid_request',
      `the ${type} body cannot be staged: ${set.problems[0]!.message}`,
      set.problems.map((p) => ({ path: dotted(p.path ?? ''), message: `${p.message}${p.fix ? ` ${p.fix}` : ''}` })),
    );
  const own = type === 'view' ? set.artifacts : set.artifacts.filter((a) => a.type === type);
  const stray = own.filter((a) => !(a.name === name || (type === 'view' && a.name.startsWith(`${name}.`))));
  if (own.length === 0 || stray.length > 0) {
    const named = (stray[0] ?? set.artifacts[0])?.name;
    throw new ApiError(
      'invalid_request',
      named === undefined
        ? `the ${type} body stages nothing`
        : `the body stages ${type} ${JSON.stringify(named)}, not ${JSON.stringify(name)}: PUT it at …/drafts/${type}/${encodeURIComponent(named)}, or name it ${JSON.stringify(name)}`,
      [{ path: type === 'seed' ? 'body.object' : 'body.name', message: `names ${JSON.stringify(named)}; the path names ${JSON.stringify(name)}` }],
    );
  }
  // An object's listViews are views: `<object>.<key>`, staged with it.
  return set.artifacts;
}
