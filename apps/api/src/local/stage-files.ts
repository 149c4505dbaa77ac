import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { type BuildIssue, fingerprint, sortIssues } from '@bvl/build-issue';
import { type ArtifactType, FOLDER_DIRS, readSource, SourceError } from '@bvl/metadata';
import { verify } from '@bvl/verify';
import { issueIds } from '@bvl/verify-build';
import { confineTo } from './confine-path.ts';
import { filesVersion } from './files-version.ts';
import type { LocalSource } from './load-files.ts';

/** The folder each artifact type is written to (the first FOLDER_DIRS entry of the type: seeds/, not data/). */
const DIR_OF = new Map<string, string>(
  Object.entries(FOLDER_DIRS)
    .reverse()
    .map(([dir, type]) => [type, dir]),
);

/** A file name an artifact name can be written as: no folder, no dot file, nothing a file system reads otherwise. */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}$/;

/** What stage_drafts wrote, and the L1 issues it caused. */
export interface StageFilesResult {
  readonly staged: number;
  readonly artifacts: ReadonlyArray<{ readonly type: string; readonly name: string }>;
  /** Files written, relative to the served folder. */
  readonly written: string[];
  readonly draftVersion: string;
  readonly issues: BuildIssue[];
  readonly issueIds: string[];
  readonly resolved: number;
  readonly errors: number;
  readonly warnings: number;
}

/**
 * `bvl mcp`'s stage_drafts: writes each artifact as `<drafts>/<type folder>/<name>.json` (the
 * per-artifact layout bvl reads: objects/, views/, dashboards/, …) and answers with the L1 issues
 * the files caused, as the service's stage_drafts does. The drafts must be a folder inside the
 * served one (made when missing); every name and path is checked before the first file is written.
 */
export async function stageFiles(
  cwd: string,
  source: LocalSource & { readonly drafts: string },
  artifacts: ReadonlyArray<{ readonly type: ArtifactType; readonly name: string; readonly body: unknown }>,
): Promise<StageFilesResult> {
  const folder = confineTo(cwd);
  await folder.check(source.path);
  await folder.check(source.drafts);
  const at = await stat(resolve(cwd, source.drafts)).catch(() => undefined);
  if (at && !at.isDirectory()) throw new SourceError(`${source.drafts} is a file: stage_drafts writes per-artifact files into a drafts folder`);
  const targets = artifacts.map((a, k) => {
    const dir = DIR_OF.get(a.type);
    if (!dir || !SAFE_NAME.test(a.name))
      throw new SourceError(`artifacts.${k}: ${JSON.stringify(a.name.slice(0, 80))} cannot be a file name (letters, digits, _ . - only; at most 200)`);
    return join(source.drafts, dir, `${a.name}.json`);
  });
  for (const t of targets) await folder.check(t);
  const lint = async () => {
    const published = await readSource(source.path, { cwd });
    const drafts = (await stat(resolve(cwd, source.drafts)).catch(() => undefined)) ? await readSource(source.drafts, { draft: true, cwd }) : undefined;
    return { issues: sortIssues(verify(published, drafts, { layers: new Set(['graph'] as const) }).issues), version: filesVersion(published, drafts) };
  };
  const before = new Set((await lint()).issues.map(fingerprint));
  for (const [k, t] of targets.entries()) {
    await mkdir(dirname(resolve(cwd, t)), { recursive: true });
    await writeFile(resolve(cwd, t), `${JSON.stringify(artifacts[k]!.body, null, 2)}\n`);
  }
  const { issues: after, version } = await lint();
  const now = new Set(after.map(fingerprint));
  const ids = issueIds(after);
  const caused = after.flatMap((i, k) => (before.has(fingerprint(i)) ? [] : [k]));
  const errors = after.filter((i) => i.severity === 'error').length;
  return {
    staged: targets.length,
    artifacts: artifacts.map((a) => ({ type: a.type, name: a.name })),
    written: [...new Set(targets)],
    draftVersion: version,
    issues: caused.map((k) => after[k]!),
    issueIds: caused.map((k) => ids[k]!),
    resolved: [...before].filter((f) => !now.has(f)).length,
    errors,
    warnings: after.length - errors,
  };
}
