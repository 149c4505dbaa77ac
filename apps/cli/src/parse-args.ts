import { parseArgs } from 'node:util';
import { didYouMean } from '@bvl/metadata';

import { UsageError } from './usage-error.ts';

export { UsageError };

/** The output formats of the report commands. */
export const FORMATS = ['pretty', 'json', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

/** A flag a command takes. */
export type FlagSpec = { type: 'string' | 'boolean'; short?: string };

type Values<T extends Record<string, FlagSpec>> = { [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean };

/**
 * Parses a command's flags. An unknown flag is a usage error with the closest known flag; a flag
 * that needs a value and has none, or a switch given a value, is one too. `--` ends the flags.
 */
export function parseCommandArgs<const T extends Record<string, FlagSpec>>(
  argv: string[],
  options: T,
  command: string,
): { values: Values<T>; positionals: string[] } {
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  const known = Object.keys(options).map((k) => `--${k}`);
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value);
    if (t.kind !== 'option') continue;
    const spec = (options as Record<string, FlagSpec>)[t.name];
    if (!spec) {
      const near = didYouMean(t.rawName.replace(/^-+/, '--'), known, 1);
      throw new UsageError(
        `unknown flag ${t.rawName} for bvl ${command}${near.length ? `; did you mean ${near[0]}?` : ''} (bvl ${command} --help lists the flags)`,
      );
    }
    if (spec.type === 'string') {
      if (t.value === undefined || (t.inlineValue !== true && t.value.startsWith('-') && t.value !== '-'))
        throw new UsageError(`${t.rawName} needs a value (bvl ${command} --help)`);
      values[t.name] = t.value;
    } else {
      if (t.inlineValue) throw new UsageError(`${t.rawName} is a switch and takes no value`);
      values[t.name] = true;
    }
  }
  return { values: values as Values<T>, positionals };
}

/** Validates `--format` against the formats a command offers (default: every report format). */
export function parseFormat(value: string | undefined): Format;
export function parseFormat<const F extends string>(value: string | undefined, formats: readonly F[]): F;
export function parseFormat(value: string | undefined, formats: readonly string[] = FORMATS): string {
  const v = value ?? 'pretty';
  if (formats.includes(v)) return v;
  const near = didYouMean(v, formats, 1);
  throw new UsageError(`--format takes ${formats.join(', ')} (got ${JSON.stringify(v)}${near.length ? `; did you mean ${near[0]}?` : ''})`);
}

/** Validates a non-negative integer flag such as `--max-warnings`. */
export function parseCount(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} takes a whole number of 0 or more (got ${JSON.stringify(value)})`);
  return Number(value);
}

/** The one stack path a command takes, or a usage error naming what is missing. */
export function oneStackArg(positionals: readonly string[], verb: string, usage: string): string {
  if (positionals.length === 1) return positionals[0]!;
  throw new UsageError(
    positionals.length === 0 ? `missing the stack to ${verb}\n${usage}` : `expected one stack, got ${positionals.length}: ${positionals.join(' ')}\n${usage}`,
  );
}
