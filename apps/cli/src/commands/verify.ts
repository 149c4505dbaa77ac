import { readSource } from '@bvl/metadata';
import { DEFAULT_RENDERER, RENDERER_PROFILES } from '@bvl/render-contract';
import { STATIC_LAYERS, type StaticLayer, verify } from '@bvl/verify';
import { type CliIo, EXIT } from '../cli-io.ts';
import { oneStackArg, parseCommandArgs, parseFormat, UsageError } from '../parse-args.ts';
import { VERIFY_USAGE } from '../usage.ts';
import { writeReport } from '../write-report.ts';

function parseLayers(value: string | undefined): Set<StaticLayer> {
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

/** Validates `--renderer`: a known renderer profile, default the newest objectui. */
function parseRenderer(value: string | undefined): string {
  if (value === undefined) return DEFAULT_RENDERER;
  if (!Object.hasOwn(RENDERER_PROFILES, value))
    throw new UsageError(`--renderer takes one of ${Object.keys(RENDERER_PROFILES).join(', ')} (got ${JSON.stringify(value)})`);
  return value;
}

/** `bvl verify`: L1 + L2 over published ⊕ drafts. Exit 0 clean, 1 errors found, 2 could not run. */
export async function verifyCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    drafts: { type: 'string' },
    format: { type: 'string' },
    layers: { type: 'string' },
    renderer: { type: 'string' },
  });
  const stack = oneStackArg(positionals, 'verify', VERIFY_USAGE);
  const format = parseFormat(values.format);
  const layers = parseLayers(values.layers);
  const renderer = parseRenderer(values.renderer);
  const published = await readSource(stack, { cwd: io.cwd });
  const drafts = values.drafts !== undefined ? await readSource(values.drafts, { draft: true, cwd: io.cwd }) : undefined;
  const { graph, issues, checked, publishable: ok } = verify(published, drafts, { layers, renderer });
  const counts = Object.entries(checked)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  writeReport(io, format, { ok, issues, checked }, (a) => graph.sourceOf(a.type, a.name)?.file, [`checked: ${counts}`]);
  return ok ? EXIT.clean : EXIT.errors;
}
