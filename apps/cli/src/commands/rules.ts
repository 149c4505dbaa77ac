import { CATALOGUE, RULE_DOCS, ruleHelpUri } from '@bvl/build-issue';
import { DEFAULT_SPEC, SPEC_PROFILES } from '@bvl/metadata';
import { DEFAULT_RENDERER, RENDERER_PROFILES } from '@bvl/render-contract';
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, parseFormat, UsageError } from '../parse-args.ts';

/** The targets verify can check against: a spec release (what it refuses is an error) and a renderer profile (render outcomes of what the spec accepts). */
const TARGETS = {
  specs: Object.keys(SPEC_PROFILES),
  renderers: Object.keys(RENDERER_PROFILES),
  default: { spec: DEFAULT_SPEC, renderer: DEFAULT_RENDERER },
};

/** `bvl rules`: the catalogue — code, layer, default severity, one line — from the rule docs, and the targets. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { format: { type: 'string' } }, 'rules');
  if (positionals.length > 0) throw new UsageError(`bvl rules takes no arguments (bvl explain ${positionals[0]} explains one code)`);
  const format = parseFormat(values.format, ['pretty', 'json'] as const);
  const codes = Object.keys(CATALOGUE) as Array<keyof typeof CATALOGUE>;
  if (format === 'json') {
    const rules = codes.map((code) => ({ code, ...CATALOGUE[code], ...RULE_DOCS[code], helpUri: ruleHelpUri(code) }));
    io.stdout(`${JSON.stringify({ rules, targets: TARGETS }, null, 2)}\n`);
    return EXIT.clean;
  }
  const width = Math.max(...codes.map((c) => c.length));
  const lines = codes.map(
    (code) => `${code.padEnd(width)}  ${CATALOGUE[code].layer.padEnd(7)}  ${CATALOGUE[code].severity.padEnd(7)}  ${CATALOGUE[code].summary}`,
  );
  const targets = [
    `A target is a spec release plus a renderer profile (bvl verify --spec, --renderer; default ${DEFAULT_SPEC} + ${DEFAULT_RENDERER}).`,
    `What the spec refuses (${TARGETS.specs.join(', ')}) is invalid_artifact, an error, whatever the renderer would draw;`,
    `the renderer profile (${TARGETS.renderers.join(', ')}) decides render outcomes only for what the spec accepts.`,
  ];
  io.stdout(
    `${'code'.padEnd(width)}  layer    default  meaning\n${lines.join('\n')}\n\n${targets.join('\n')}\n\nbvl explain <code> says why it breaks the app and how to fix it.\n`,
  );
  return EXIT.clean;
}
