import { CATALOGUE, RULE_DOCS, ruleHelpUri } from '@bvl/build-issue';
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, parseFormat, UsageError } from '../parse-args.ts';

/** `bvl rules`: the catalogue — code, layer, default severity, one line — from the rule docs. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { format: { type: 'string' } }, 'rules');
  if (positionals.length > 0) throw new UsageError(`bvl rules takes no arguments (bvl explain ${positionals[0]} explains one code)`);
  const format = parseFormat(values.format, ['pretty', 'json'] as const);
  const codes = Object.keys(CATALOGUE) as Array<keyof typeof CATALOGUE>;
  if (format === 'json') {
    const rules = codes.map((code) => ({ code, ...CATALOGUE[code], ...RULE_DOCS[code], helpUri: ruleHelpUri(code) }));
    io.stdout(`${JSON.stringify({ rules }, null, 2)}\n`);
    return EXIT.clean;
  }
  const width = Math.max(...codes.map((c) => c.length));
  const lines = codes.map(
    (code) => `${code.padEnd(width)}  ${CATALOGUE[code].layer.padEnd(7)}  ${CATALOGUE[code].severity.padEnd(7)}  ${CATALOGUE[code].summary}`,
  );
  io.stdout(`${'code'.padEnd(width)}  layer    default  meaning\n${lines.join('\n')}\n\nbvl explain <code> says why it breaks the app and how to fix it.\n`);
  return EXIT.clean;
}
