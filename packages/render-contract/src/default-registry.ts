import objectui from '../registry/objectui.json' with { type: 'json' };
import { type ComponentRegistry, parseRegistry } from './component-registry.ts';

/** objectui's component registry (registry/objectui.json), checked once at load. */
export const DEFAULT_REGISTRY: ComponentRegistry = parseRegistry(objectui);
