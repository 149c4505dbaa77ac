import type { ArtifactSource, SourceNotice } from './artifact.ts';
import { didYouMean } from './edit-distance.ts';
import { childPointer, pointer } from './json-pointer.ts';

/** ObjectStack's navigation item types (the `type` discriminator of NavigationItem). */
export const NAV_ITEM_TYPES = ['object', 'dashboard', 'page', 'url', 'report', 'action', 'component', 'group', 'separator'] as const;

/** Deepest navigation nesting walked (bodies are already capped at MAX_DEPTH). */
const MAX_NAV_DEPTH = 32;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A notice for every navigation item (in `navigation`, `areas[].navigation`, at any depth) whose
 * `type` is not a navigation item type: bvl cannot tell where such an item leads, so its target is
 * not checked, and saying nothing would read as "checked and fine".
 */
export function navTypeNotices(app: string, body: Record<string, unknown>, source: ArtifactSource): SourceNotice[] {
  const notices: SourceNotice[] = [];
  const walk = (items: unknown, at: string, depth: number) => {
    if (!Array.isArray(items) || depth > MAX_NAV_DEPTH) return;
    items.forEach((item, i) => {
      if (!isRecord(item)) return;
      const here = childPointer(at, i);
      const type = item.type;
      if (typeof type === 'string' && !(NAV_ITEM_TYPES as readonly string[]).includes(type)) {
        const near = didYouMean(type, NAV_ITEM_TYPES, 1);
        const id = typeof item.id === 'string' ? `"${item.id}"` : `at ${here}`;
        notices.push({
          file: source.file,
          pointer: childPointer(source.pointer + here, 'type'),
          message: `App "${app}": navigation item ${id} has type "${type}", which is not a navigation item type${near.length ? ` (did you mean "${near[0]}"?)` : ` (types: ${NAV_ITEM_TYPES.join(', ')})`}, so where it leads is not checked.`,
        });
      }
      walk(item.children, childPointer(here, 'children'), depth + 1);
    });
  };
  walk(body.navigation, pointer('navigation'), 0);
  if (Array.isArray(body.areas)) body.areas.forEach((a, i) => isRecord(a) && walk(a.navigation, pointer('areas', i, 'navigation'), 0));
  return notices;
}
