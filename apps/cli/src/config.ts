import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type BuildIssue, CATALOGUE, type Severity } from '@bvl/build-issue';
import { didYouMean } from '@bvl/metadata';
import { globToRegExp } from './glob.ts';

/** The config file's name; found in the input's folder or the nearest folder above it. */
export const CONFIG_FILE = 'bvl.config.json';

/** A bad config file: exit 2, naming the file and the key. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A loaded bvl.config.json. */
export interface BvlConfig {
  /** Where it was read from (relative to cwd), for messages. */
  readonly file: string;
  /** Per code: a severity, or off. */
  readonly rules: Readonly<Record<string, Severity | 'off'>>;
  /** Globs, relative to the config file's folder: issues in matching files are not reported. */
  readonly ignore: readonly string[];
  readonly dir: string;
}

const SETTINGS = ['error', 'warning', 'off'] as const;

/** The config file for an input: `explicit` if given, else the nearest bvl.config.json from the input upward. */
export function findConfig(cwd: string, input: string, explicit?: string): string | undefined {
  if (explicit) return resolve(cwd, explicit);
  // A stack on standard input is looked up from the current folder.
  let at = input === '-' ? resolve(cwd) : resolve(cwd, input);
  if (!existsSync(at) || !statSync(at).isDirectory()) at = dirname(at);
  for (;;) {
    const file = join(at, CONFIG_FILE);
    if (existsSync(file)) return file;
    if (dirname(at) === at) return undefined;
    at = dirname(at);
  }
}

/** Reads and checks a config file; every problem is a ConfigError in the user's terms. */
export function loadConfig(file: string, cwd: string): BvlConfig {
  const shown = relative(cwd, file) || file;
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`cannot read ${shown}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ConfigError(`${shown} must hold a JSON object with "rules" and/or "ignore"`);
  const raw = doc as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (key === 'rules' || key === 'ignore' || key === '$schema') continue;
    const near = didYouMean(key, ['rules', 'ignore'], 1);
    throw new ConfigError(`${shown}: unknown key "${key}"${near.length ? ` (did you mean "${near[0]}"?)` : ''}; a config has "rules" and "ignore"`);
  }
  const rules: Record<string, Severity | 'off'> = {};
  if (raw.rules !== undefined) {
    if (typeof raw.rules !== 'object' || raw.rules === null || Array.isArray(raw.rules))
      throw new ConfigError(`${shown}: "rules" must be an object of code → "error" | "warning" | "off"`);
    for (const [code, setting] of Object.entries(raw.rules)) {
      if (!Object.hasOwn(CATALOGUE, code)) {
        const near = didYouMean(code, Object.keys(CATALOGUE), 1);
        throw new ConfigError(`${shown}: rules."${code}" is not a bvl code${near.length ? ` (did you mean "${near[0]}"?)` : ''}; bvl rules lists them`);
      }
      if (typeof setting !== 'string' || !(SETTINGS as readonly string[]).includes(setting))
        throw new ConfigError(`${shown}: rules."${code}" must be "error", "warning" or "off" (got ${JSON.stringify(setting)})`);
      rules[code] = setting as Severity | 'off';
    }
  }
  let ignore: string[] = [];
  if (raw.ignore !== undefined) {
    if (!Array.isArray(raw.ignore) || raw.ignore.some((g) => typeof g !== 'string' || g === ''))
      throw new ConfigError(`${shown}: "ignore" must be a list of file globs, e.g. ["legacy/**"]`);
    ignore = raw.ignore as string[];
  }
  return { file: shown, rules, ignore, dir: dirname(file) };
}

/**
 * Applies a config to an issue stream: issues in ignored files and of rules turned off are dropped,
 * and a rule's severity is set as configured. Returns the kept issues and how many were dropped.
 */
export function applyConfig(issues: readonly BuildIssue[], config: BvlConfig | undefined, cwd: string): { issues: BuildIssue[]; dropped: number } {
  if (!config) return { issues: [...issues], dropped: 0 };
  const globs = config.ignore.map(globToRegExp);
  const ignored = (file: string | undefined) => {
    if (!file || globs.length === 0) return false;
    const rel = relative(config.dir, resolve(cwd, file)).split(sep).join('/');
    return globs.some((g) => g.test(rel));
  };
  const kept: BuildIssue[] = [];
  for (const issue of issues) {
    const setting = config.rules[issue.code];
    if (setting === 'off' || ignored(issue.location?.file)) continue;
    kept.push(setting && setting !== issue.severity ? { ...issue, severity: setting } : issue);
  }
  return { issues: kept, dropped: issues.length - kept.length };
}
