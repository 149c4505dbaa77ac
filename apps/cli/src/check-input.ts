import type { BuildIssue } from '@bvl/build-issue';
import { type ArtifactSet, type LocatedNotice, locateIssues, locateNotices, readSource } from '@bvl/metadata';
import { type Verification, type VerifyOptions, verify } from '@bvl/verify';
import type { CliIo } from './cli-io.ts';
import { applyConfig, type BvlConfig, findConfig, loadConfig } from './config.ts';
import { UsageError } from './parse-args.ts';

/** The stack and drafts a command was given, read. */
export interface Inputs {
  readonly published: ArtifactSet;
  readonly drafts: ArtifactSet | undefined;
}

/** Reads the stack and the drafts (`-`: standard input, for one of them); `overrides` stand in for files on disk. */
export async function readInputs(io: CliIo, stack: string, drafts: string | undefined, overrides?: ReadonlyMap<string, string>): Promise<Inputs> {
  if (stack === '-' && drafts === '-') throw new UsageError('only one of the stack and --drafts can be read from standard input (-)');
  const read = async (path: string, draft: boolean) => {
    if (path !== '-') return readSource(path, { cwd: io.cwd, draft, overrides });
    if (!io.stdin) throw new UsageError('this bvl cannot read standard input');
    return readSource('-', { draft, text: await io.stdin() });
  };
  return { published: await read(stack, false), drafts: drafts === undefined ? undefined : await read(drafts, true) };
}

/** The config for an input (none when there is no bvl.config.json). */
export function configFor(io: CliIo, stack: string, explicit: string | undefined): BvlConfig | undefined {
  const file = findConfig(io.cwd, stack, explicit);
  return file ? loadConfig(file, io.cwd) : undefined;
}

/** One verification of the inputs, located in their files, with the config applied. */
export interface Checked {
  readonly verification: Verification;
  /** Located issues after the config (rules off, severities, ignored files). */
  readonly issues: BuildIssue[];
  /** Issues the config dropped. */
  readonly configDropped: number;
  readonly notices: LocatedNotice[];
}

/** Verifies the inputs (the one `verify`), places every issue in its file, and applies the config. */
export function checkInputs(io: CliIo, inputs: Inputs, options: VerifyOptions, config: BvlConfig | undefined): Checked {
  const verification = verify(inputs.published, inputs.drafts, options);
  const sets = [inputs.published, inputs.drafts];
  const located = locateIssues(verification.issues, verification.graph, sets);
  const { issues, dropped } = applyConfig(located, config, io.cwd);
  return { verification, issues, configDropped: dropped, notices: locateNotices(sets) };
}

/** A notice as one line: `file:line:column: message`. */
export const noticeLine = (n: LocatedNotice): string => (n.file && n.line ? `${n.file}:${n.line}:${n.column ?? 1}: ${n.message}` : n.message);

/** Counts in the user's words: "3 objects, 6 views, …, 9 component schemas rendered, 1 dataset compiled". */
export function checkedLine(checked: object): string {
  const words: Record<string, [string, string]> = {
    schemas: ['component schema rendered', 'component schemas rendered'],
    compiledDatasets: ['dataset compiled to SQL', 'datasets compiled to SQL'],
  };
  const parts: string[] = [];
  for (const [k, v] of Object.entries(checked)) {
    if (typeof v !== 'number') continue;
    const w = words[k];
    parts.push(w ? `${v} ${v === 1 ? w[0] : w[1]}` : `${v} ${v === 1 ? k.replace(/s$/, '') : k}`);
  }
  return `checked: ${parts.join(', ')}`;
}
