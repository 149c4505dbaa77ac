import { AGGREGATES, DATE_GRANULARITIES, DERIVED_OPS, FIELD_TYPES, SEED_MODES, VIEW_FILTER_OPERATOR_NAMES } from '@bvl/metadata';
import { DEFAULT_REGISTRY } from '@bvl/render-contract';
import reference from './stack-reference.json' with { type: 'json' };

/** The most characters the system prompt may have (≈ 3k tokens): a test holds the reference to it. */
export const MAX_SYSTEM_PROMPT_CHARS = 12_000;

/** Lists the reference names with `{{placeholder}}`, filled from the code so the prompt never drifts from what bvl checks. */
const PLACEHOLDERS: Readonly<Record<string, readonly string[]>> = {
  fieldTypes: FIELD_TYPES,
  viewTypes: Object.keys(DEFAULT_REGISTRY.views.list.types),
  formTypes: Object.keys(DEFAULT_REGISTRY.views.form.types),
  widgetTypes: Object.keys(DEFAULT_REGISTRY.widgets.types),
  // The format's operators; the aliases it also accepts (eq, gt, …) are not taught.
  filterOperators: VIEW_FILTER_OPERATOR_NAMES.slice(0, VIEW_FILTER_OPERATOR_NAMES.indexOf('eq')),
  aggregates: AGGREGATES,
  derivedOps: DERIVED_OPS,
  granularities: DATE_GRANULARITIES,
  seedModes: SEED_MODES,
};

const fill = (line: string): string =>
  line.replace(/\{\{([a-zA-Z]+)\}\}/g, (whole, key: string) => (Object.hasOwn(PLACEHOLDERS, key) ? PLACEHOLDERS[key]!.join(' | ') : whole));

/**
 * The agent's system prompt: its role and workflow, then a compact reference of the stack format
 * (objects and fields, views with their per-type blocks, datasets, dashboards and widgets, apps and
 * navigation, seeds), each with one example. The reference is data (stack-reference.json); its
 * examples form one small app that verifies clean (tested). With `reference: false`, the role and
 * workflow alone: what the agent is sent once its first round is recorded (see condenseConversation).
 */
export function systemPrompt(options: { readonly reference?: boolean } = {}): string {
  const lines = [...reference.intro, '', '# How to work', ...reference.workflow];
  if (options.reference === false) {
    lines.push('', 'The stack format reference was given when the build began; the issues verify_build names say what each artifact needs.');
    return lines.join('\n');
  }
  lines.push('', '# Stack format reference');
  for (const s of reference.sections) {
    lines.push('', `## ${s.title}`, ...s.rules.map((r) => `- ${fill(r)}`), `Example: ${JSON.stringify(s.example)}`);
  }
  return lines.join('\n');
}

/** The reference's examples as one stack document (with the support artifacts they need), for tests. */
export function referenceStack(): Record<string, unknown[]> {
  const byTitle = (t: string) => reference.sections.find((s) => s.title === t)?.example;
  return {
    objects: [byTitle('object'), ...reference.support.objects],
    views: [byTitle('view')],
    datasets: [byTitle('dataset')],
    dashboards: [byTitle('dashboard')],
    apps: [byTitle('app')],
    data: [byTitle('seed'), ...reference.support.data],
  };
}
