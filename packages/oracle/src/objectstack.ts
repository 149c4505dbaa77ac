import { docKey, docKeyOfLint, pathShape, type StackDoc } from './doc-key.ts';

/** One error an authority reports, on one stack entry, with a signature stable across stacks. */
export interface Verdict {
  readonly key: string;
  /** What kind of error it is (`lint security-owd-unset`, `spec unrecognized_keys views[].list.data {objectName}`, `bvl unknown_field`). */
  readonly signature: string;
  readonly message: string;
}

/** The ObjectStack packages the oracle judges with, loaded from the oracle package's devDependencies. */
export interface ObjectStack {
  readonly version: string;
  readonly lintVersion: string;
  /** Schema parse + `defineStack` (strict): its errors, or the throw itself as the verdict. */
  spec(doc: StackDoc): Verdict[];
  /** The authoring rules `os validate` runs: their error findings. */
  lint(doc: StackDoc): Verdict[];
}

/** The versions the expected-disagreement file was reviewed against. */
export const PINNED = '17.4.0';

type ZodIssue = { code: string; path: PropertyKey[]; message: string; keys?: string[]; values?: unknown[] };
type Finding = { severity: string; rule: string; where: string; path: string; message: string };

/**
 * Loads `@objectstack/spec` and `@objectstack/lint`; a string saying which is missing when they
 * cannot be loaded (the tier then skips, or fails under CI).
 */
export async function loadObjectStack(from?: string): Promise<ObjectStack | string> {
  let specModule: Record<string, unknown>;
  let lintModule: Record<string, unknown>;
  let version: string;
  let lintVersion: string;
  try {
    specModule = await importFrom('@objectstack/spec', from);
    lintModule = await importFrom('@objectstack/lint', from);
    version = await packageVersion('@objectstack/spec', from);
    lintVersion = await packageVersion('@objectstack/lint', from);
  } catch (e) {
    return `ObjectStack packages not installed (${(e as Error).message.split('\n')[0]}): npm install -w @bvl/oracle`;
  }
  const defineStack = specModule.defineStack as (doc: unknown) => unknown;
  const normalize = specModule.normalizeStackInput as (doc: unknown) => Record<string, unknown>;
  const runRules = lintModule.runAuthoringRules as (command: string, run: { normalized: Record<string, unknown> }) => Finding[];
  return {
    version,
    lintVersion,
    spec: (doc) =>
      quietly(() => {
        try {
          defineStack(structuredClone(doc));
          return [];
        } catch (e) {
          const issues = (e as { issues?: ZodIssue[] }).issues;
          if (!Array.isArray(issues)) return [{ key: 'stack', signature: `spec throws ${(e as Error).name}`, message: firstLine(e) }];
          return issues.map((i) =>
            typeof i === 'object' && i !== null && typeof i.code === 'string'
              ? { key: docKey(doc, i.path?.[0], i.path?.[1]), signature: specSignature(i), message: String(i.message) }
              : crossReference(e as Error, typeof i === 'string' ? i : String((i as { message?: unknown })?.message ?? firstLine(e))),
          );
        }
      }),
    lint: (doc) =>
      quietly(() => {
        try {
          return runRules('validate', { normalized: normalize(structuredClone(doc)) })
            .filter((f) => f.severity === 'error')
            .map((f) => ({ key: docKeyOfLint(doc, f.path, f.where), signature: `lint ${f.rule}`, message: f.message }));
        } catch (e) {
          return [{ key: 'stack', signature: `lint throws ${(e as Error).name}`, message: firstLine(e) }];
        }
      }),
  };
}

/** Where a package resolves: from this package, or from another install (`oracle:try` installs a newer ObjectStack in a temporary folder). */
async function resolveFrom(name: string, from?: string): Promise<string> {
  const { createRequire } = await import('node:module');
  const { join } = await import('node:path');
  return createRequire(from ? join(from, 'package.json') : import.meta.url).resolve(name);
}

export async function importFrom(name: string, from?: string): Promise<Record<string, unknown>> {
  if (!from) return (await import(name)) as Record<string, unknown>;
  const { pathToFileURL } = await import('node:url');
  // The ESM entry: `exports` maps import to .mjs/.js beside the CommonJS one resolve() returns.
  const cjs = await resolveFrom(name, from);
  for (const candidate of [cjs.replace(/\.c?js$/, '.mjs'), cjs.replace(/\.cjs$/, '.js'), cjs]) {
    try {
      return (await import(pathToFileURL(candidate).href)) as Record<string, unknown>;
    } catch {}
  }
  return (await import(pathToFileURL(cjs).href)) as Record<string, unknown>;
}

/** The version of an installed package: the package.json above its resolved entry (lint does not export its package.json). */
export async function packageVersion(name: string, from?: string): Promise<string> {
  const { readFileSync } = await import('node:fs');
  const { dirname, join } = await import('node:path');
  let dir = dirname(await resolveFrom(name, from));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
      if (pkg.name === name) return pkg.version;
    } catch {}
  }
  return 'unknown';
}

/** `spec <code> <path shape> [{keys}]`: what the spec refused, where, without the stack's own names. */
function specSignature(i: ZodIssue): string {
  const keys = i.code === 'unrecognized_keys' && i.keys ? ` {${[...i.keys].sort().join(',')}}` : '';
  return `spec ${i.code} ${pathShape(i.path ?? [])}${keys}`;
}

const COLLECTION_OF: Record<string, string> = {
  App: 'apps',
  Object: 'objects',
  View: 'views',
  Dashboard: 'dashboards',
  Dataset: 'datasets',
  Report: 'reports',
  Page: 'pages',
};

/** A cross-reference failure of defineStack (no zod path): keyed by the entry its message names, its names and indices masked in the signature. */
function crossReference(e: Error, message: string): Verdict {
  const m = /^\W*(App|Object|View|Dashboard|Dataset|Report|Page) '([^']+)'/.exec(message.trim());
  const key = m ? `${COLLECTION_OF[m[1]!]}/${m[2]}` : 'stack';
  return {
    key,
    signature: `spec ${e.name}: ${message
      .trim()
      .replace(/^\W+/, '')
      .replace(/'[^']*'/g, "'…'")
      .replace(/\[\d+\]/g, '[]')}`,
    message,
  };
}

const firstLine = (e: unknown): string => String((e as Error)?.message ?? e).split('\n')[0]!;

/** ObjectStack warns on the console while it parses; the oracle reads verdicts, not the console. */
function quietly<T>(fn: () => T): T {
  const warn = console.warn;
  const log = console.log;
  console.warn = () => {};
  console.log = () => {};
  try {
    return fn();
  } finally {
    console.warn = warn;
    console.log = log;
  }
}
