import objectui202602 from '../registry/objectui-2026-02.json' with { type: 'json' };
import objectui202609 from '../registry/objectui-2026-09.json' with { type: 'json' };
import { type ComponentRegistry, RegistryError } from './component-registry.ts';
import { parseRegistry } from './parse-registry.ts';

/**
 * The renderer profiles bvl knows, by name, oldest first: one registry file per objectui release,
 * each rule's outcome taken from that release's code (registry/*.json name their sources).
 */
export const RENDERER_PROFILES: Readonly<Record<string, ComponentRegistry>> = Object.freeze({
  'objectui-2026-02': parseRegistry(objectui202602),
  'objectui-2026-09': parseRegistry(objectui202609),
});

/** The profile verification uses unless told otherwise: the newest objectui. */
export const DEFAULT_RENDERER = 'objectui-2026-09';

/** The default profile's registry. */
export const DEFAULT_REGISTRY: ComponentRegistry = RENDERER_PROFILES[DEFAULT_RENDERER]!;

/** The registry of a named profile; throws {@link RegistryError} naming the known ones for any other name. */
export function rendererProfile(name: string): ComponentRegistry {
  if (Object.hasOwn(RENDERER_PROFILES, name)) return RENDERER_PROFILES[name]!;
  throw new RegistryError(`unknown renderer "${name}" (known: ${Object.keys(RENDERER_PROFILES).join(', ')})`);
}
