import { parseArgs } from 'node:util';

/** A usage error: the CLI prints it on one line and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The output formats every command accepts. */
export const FORMATS = ['pretty', 'json', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];

/** Parses a command's flags strictly: unknown flags are a usage error, not ignored. */
export function parseCommandArgs<const T extends Record<string, { type: 'string' | 'boolean'; short?: string; default?: string | boolean }>>(
  argv: string[],
  options: T,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Validates `--format`. */
export function parseFormat(value: unknown): Format {
  const v = value ?? 'pretty';
  if (typeof v !== 'string' || !(FORMATS as readonly string[]).includes(v))
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got ${JSON.stringify(v)})`);
  return v as Format;
}

/** The one stack path a command takes, or a usage error naming what is missing. */
export function oneStackArg(positionals: readonly string[], verb: string, usage: string): string {
  if (positionals.length === 1) return positionals[0]!;
  throw new UsageError(positionals.length === 0 ? `missing the stack to ${verb}\n${usage}` : `expected one stack, got ${positionals.length}\n${usage}`);
}
