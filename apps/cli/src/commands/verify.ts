import { DEFAULT_SPEC, SPEC_PROFILES } from '@bvl/metadata';
import { DEFAULT_RENDERER, RENDERER_PROFILES } from '@bvl/render-contract';
import { STATIC_LAYERS, type StaticLayer, type VerifyOptions } from '@bvl/verify';
import { applyBaseline, readBaseline } from '../baseline.ts';
import { checkedLine, checkInputs, configFor, readInputs } from '../check-input.ts';
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { oneStackArg, parseCommandArgs, parseCount, parseFormat, UsageError } from '../parse-args.ts';
import { gateWarnings } from '../warning-gate.ts';
import { writeReport } from '../write-report.ts';

/** The flags of `bvl verify` (the help text is in command-help.ts). */
export const VERIFY_FLAGS = {
  drafts: { type: 'string' },
  layers: { type: 'string' },
  baseline: { type: 'string' },
  config: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string', short: 'o' },
  quiet: { type: 'boolean', short: 'q' },
  'max-warnings': { type: 'string' },
  all: { type: 'boolean' },
  renderer: { type: 'string' },
  spec: { type: 'string' },
} as const;

/** Validates `--renderer`: a known renderer profile, default the newest objectui. */
export function parseRenderer(value: string | undefined): string {
  if (value === undefined) return DEFAULT_RENDERER;
  if (!Object.hasOwn(RENDERER_PROFILES, value))
    throw new UsageError(`--renderer takes one of ${Object.keys(RENDERER_PROFILES).join(', ')} (got ${JSON.stringify(value)})`);
  return value;
}

/** Validates `--spec`: a known ObjectStack spec release, default the newest. With `--renderer` it makes the target. */
export function parseSpec(value: string | undefined): string {
  if (value === undefined) return DEFAULT_SPEC;
  if (!Object.hasOwn(SPEC_PROFILES, value)) throw new UsageError(`--spec takes one of ${Object.keys(SPEC_PROFILES).join(', ')} (got ${JSON.stringify(value)})`);
  return value;
}

/** `--layers graph,render`. */
export function parseLayers(value: string | undefined): Set<StaticLayer> {
  if (value === undefined) return new Set(STATIC_LAYERS);
  const layers = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const l of layers)
    if (!(STATIC_LAYERS as readonly string[]).includes(l)) throw new UsageError(`--layers takes ${STATIC_LAYERS.join(',')} (got ${JSON.stringify(l)})`);
  if (layers.length === 0) throw new UsageError('--layers needs at least one layer');
  return new Set(layers as StaticLayer[]);
}

/**
 * `bvl verify`: L1 + L2 over published ⊕ drafts, each issue placed in its file; the config and a
 * baseline decide what is reported. Exit 0 no error (and warnings within --max-warnings), 1
 * errors found, 2 could not run.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, VERIFY_FLAGS, 'verify');
  const stack = oneStackArg(positionals, 'verify', COMMAND_HELP.verify.usage);
  const format = parseFormat(values.format);
  const maxWarnings = parseCount('--max-warnings', values['max-warnings']);
  // Everything `verify` is asked to do, from the flags, in one place.
  const verifyOptions: VerifyOptions = { layers: parseLayers(values.layers), renderer: parseRenderer(values.renderer), spec: parseSpec(values.spec) };
  const config = configFor(io, stack, values.config);
  const known = values.baseline !== undefined ? readBaseline(values.baseline, io.cwd) : undefined;

  const inputs = await readInputs(io, stack, values.drafts);
  const { verification, issues: configured, notices } = checkInputs(io, inputs, verifyOptions, config);
  const base = known ? applyBaseline(configured, known) : { issues: configured, hidden: 0, gone: 0 };
  const gate = gateWarnings(base.issues, { quiet: values.quiet, maxWarnings });
  const errors = base.issues.length - gate.warnings;
  const ok = errors === 0 && !gate.tooMany;

  const footer = [checkedLine(verification.checked)];
  if (config) footer.push(`config: ${config.file}`);
  if (known) {
    footer.push(`baseline ${values.baseline}: ${base.hidden} known issue${base.hidden === 1 ? '' : 's'} hidden`);
    if (base.gone > 0) footer.push(`  ${base.gone} recorded issue${base.gone === 1 ? ' is' : 's are'} gone: bvl baseline rewrites the file without them`);
  }
  footer.push(...gate.footer);
  const report = {
    ok,
    issues: gate.shown,
    ...(gate.hidden > 0 ? { hiddenWarnings: gate.hidden } : {}),
    checked: verification.checked,
    ...(known ? { baseline: { file: values.baseline, hidden: base.hidden, gone: base.gone } } : {}),
  };
  writeReport(io, { command: 'verify', format, output: values.output, all: values.all, notices }, report, footer);
  return ok ? EXIT.clean : EXIT.errors;
}
