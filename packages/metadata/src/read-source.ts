import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { ArtifactSet } from './artifact.ts';
import { collectFolder, collectStack, FOLDER_DIRS, type FolderFile } from './collect-artifacts.ts';

/** Largest stack file or artifact file bvl reads (bytes). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** A source that could not be read at all (missing, unreadable, not JSON): the CLI exits 2. */
export class SourceError extends Error {
  override readonly name = 'SourceError';
}

/**
 * Reads a stack JSON file or a per-artifact folder. Throws {@link SourceError} only when the
 * source as a whole cannot be read; bad artifacts inside it become issues.
 */
export async function readSource(path: string, options: { readonly draft?: boolean; readonly cwd?: string } = {}): Promise<ArtifactSet> {
  const abs = resolve(options.cwd ?? '.', path);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(abs);
  } catch (e) {
    throw new SourceError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  if (info.isDirectory()) return collectFolder(await readFolder(abs), { root: path.replace(/\/+$/, ''), draft: options.draft ?? false });
  if (info.size > MAX_FILE_BYTES) throw new SourceError(`cannot read ${path}: ${info.size} bytes is over the ${MAX_FILE_BYTES}-byte limit`);
  const text = await readFile(abs, 'utf8').catch((e: Error) => {
    throw new SourceError(`cannot read ${path}: ${e.message}`);
  });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SourceError(`${path} is not valid JSON: ${(e as Error).message}`);
  }
  return collectStack(doc, { file: path, draft: options.draft ?? false });
}

async function readFolder(root: string): Promise<FolderFile[]> {
  const files: FolderFile[] = [];
  const entries = await readdir(root, { withFileTypes: true });
  if (!entries.some((e) => e.isDirectory() && Object.hasOwn(FOLDER_DIRS, e.name))) {
    throw new SourceError(`${root} has none of the artifact folders ${Object.keys(FOLDER_DIRS).join(', ')}`);
  }
  for (const dir of entries) {
    if (!dir.isDirectory() || !Object.hasOwn(FOLDER_DIRS, dir.name)) continue;
    for (const f of await readdir(join(root, dir.name), { withFileTypes: true })) {
      if (!f.isFile() || !f.name.endsWith('.json')) continue;
      const full = join(root, dir.name, f.name);
      const size = (await stat(full)).size;
      const text = size > MAX_FILE_BYTES ? '"file too large"' : await readFile(full, 'utf8');
      files.push({ path: relative(root, full).split('\\').join('/'), text });
    }
  }
  return files;
}
