import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type ArtifactSet, readSource } from '@bvl/metadata';

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

/** Reads the app and its drafts the way `bvl verify` does (SourceError when a source cannot be read at all). */
export async function loadFiles(cwd: string, source: LocalSource): Promise<LoadedFiles> {
  const published = await readSource(source.path, { cwd });
  const drafts = source.drafts !== undefined ? await readSource(source.drafts, { draft: true, cwd }) : undefined;
  return {
    published,
    drafts,
    folders: { published: await isFolder(cwd, source.path), drafts: source.drafts !== undefined && (await isFolder(cwd, source.drafts)) },
  };
}
