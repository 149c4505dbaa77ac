import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type ArtifactSet, readSource } from '@bvl/metadata';
import { confineTo } from './confine-path.ts';

/** What a local tool reads: a stack JSON file or a per-artifact folder, and optionally drafts over it. */
export interface LocalSource {
  /** The app: a stack JSON file or a folder (relative to the working folder). */
  readonly path: string;
  /** Drafts over it, the same way. */
  readonly drafts?: string | undefined;
}

/** The loaded sets and whether each came from a folder (only a folder's files are ever rewritten). */
export interface LoadedFiles {
  readonly published: ArtifactSet;
  readonly drafts: ArtifactSet | undefined;
  readonly folders: { readonly published: boolean; readonly drafts: boolean };
}

const isFolder = async (cwd: string, path: string) => (await stat(resolve(cwd, path)).catch(() => undefined))?.isDirectory() ?? false;

/**
 * Reads the app and its drafts the way `bvl verify` does (SourceError when a source cannot be read
 * at all, or lies outside `cwd`: see {@link confineTo}).
 */
export async function loadFiles(cwd: string, source: LocalSource): Promise<LoadedFiles> {
  await confineSource(cwd, source);
  const published = await readSource(source.path, { cwd });
  const drafts = source.drafts !== undefined ? await readSource(source.drafts, { draft: true, cwd }) : undefined;
  return {
    published,
    drafts,
    folders: { published: await isFolder(cwd, source.path), drafts: source.drafts !== undefined && (await isFolder(cwd, source.drafts)) },
  };
}

/** Refuses a source whose app or drafts path resolves outside `cwd`, before anything is read. */
export async function confineSource(cwd: string, source: LocalSource): Promise<void> {
  const folder = confineTo(cwd);
  await folder.check(source.path);
  if (source.drafts !== undefined) await folder.check(source.drafts);
}
