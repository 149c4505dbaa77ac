import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { ArtifactSet } from './artifact.ts';
import { collectFolder, collectStack, FOLDER_DIRS, type FolderFile } from './collect-artifacts.ts';
import { INPUT_LIMITS, scanJson, setProblem, shapeProblem } from './input-bounds.ts';

/** Largest stack file or artifact file bvl reads (bytes). */
export const MAX_FILE_BYTES = INPUT_LIMITS.fileBytes;

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
  if (info.isDirectory()) return bounded(path, collectFolder(await readFolder(abs, path), { root: path.replace(/\/+$/, ''), draft: options.draft ?? false }));
  // A FIFO or device would block the read forever (or never end): only regular files are read.
  if (!info.isFile()) throw new SourceError(`cannot read ${path}: it is not a regular file (a FIFO, socket or device); give a stack file or a folder`);
  if (info.size > MAX_FILE_BYTES) throw new SourceError(`cannot read ${path}: ${info.size} bytes is over the ${MAX_FILE_BYTES}-byte limit`);
  const text = await readFile(abs, 'utf8').catch((e: Error) => {
    throw new SourceError(`cannot read ${path}: ${e.message}`);
  });
  // Counted before parsing: a parse of a hostile file is where the memory would go.
  const shape = shapeProblem(scanJson(text), true);
  if (shape) throw new SourceError(`${path} ${shape}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SourceError(`${path} is not valid JSON: ${(e as Error).message}`);
  }
  return bounded(path, collectStack(doc, { file: path, draft: options.draft ?? false }));
}

/** The set, or a SourceError when it is past a limit of {@link INPUT_LIMITS}. */
function bounded(path: string, set: ArtifactSet): ArtifactSet {
  const problem = setProblem(set);
  if (problem) throw new SourceError(`${path} ${problem}`);
  return set;
}

async function readFolder(root: string, shown: string): Promise<FolderFile[]> {
  const files: FolderFile[] = [];
  const entries = await readdir(root, { withFileTypes: true });
  if (!entries.some((e) => e.isDirectory() && Object.hasOwn(FOLDER_DIRS, e.name))) {
    throw new SourceError(`${root} has none of the artifact folders ${Object.keys(FOLDER_DIRS).join(', ')}`);
  }
  let bytes = 0;
  let items = 0;
  let containers = 0;
  for (const dir of entries) {
    if (!dir.isDirectory() || !Object.hasOwn(FOLDER_DIRS, dir.name)) continue;
    for (const f of await readdir(join(root, dir.name), { withFileTypes: true })) {
      if (f.isDirectory() || !f.name.endsWith('.json')) continue;
      const full = join(root, dir.name, f.name);
      const info = await stat(full);
      const at = relative(root, full).split('\\').join('/');
      if (!info.isFile()) throw new SourceError(`cannot read ${shown}: ${at} is not a regular file (a FIFO, socket or device)`);
      bytes += Math.min(info.size, MAX_FILE_BYTES);
      if (bytes > INPUT_LIMITS.folderBytes)
        throw new SourceError(`cannot read ${shown}: its files hold more than the ${INPUT_LIMITS.folderBytes}-byte limit of a folder`);
      const text = info.size > MAX_FILE_BYTES ? '"file too large"' : await readFile(full, 'utf8');
      const shape = scanJson(text);
      items += Math.max(1, shape.listItems);
      containers += shape.containers;
      const problem = shapeProblem({ containers, listItems: 0, stackItems: items }, true);
      if (problem) throw new SourceError(`${shown} ${problem}`);
      files.push({ path: at, text });
    }
  }
  return files;
}
