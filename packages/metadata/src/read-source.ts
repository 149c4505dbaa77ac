import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { ArtifactSet, SourceNotice } from './artifact.ts';
import { collectFolder, collectStack, FOLDER_DIRS, type FolderFile } from './collect-artifacts.ts';
import { didYouMean } from './edit-distance.ts';

/** Largest stack file or artifact file bvl reads (bytes). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** A source that could not be read at all (missing, unreadable, not JSON): the CLI exits 2. */
export class SourceError extends Error {
  override readonly name = 'SourceError';
}

/** Options of {@link readSource}. */
export interface ReadSourceOptions {
  readonly draft?: boolean | undefined;
  readonly cwd?: string | undefined;
  /** The stack's text, read by the caller (standard input, given as path `-`); nothing is read from disk. */
  readonly text?: string | undefined;
  /** File texts that stand in for what is on disk, by file name as `source.file` carries it (`bvl fix --dry-run` rounds). */
  readonly overrides?: ReadonlyMap<string, string> | undefined;
}

/** The name standard input goes by in locations and messages. */
export const STDIN_NAME = '<stdin>';

/**
 * Reads a stack JSON file or a per-artifact folder (`-` with `text`: a stack from standard input).
 * Throws {@link SourceError} only when the source as a whole cannot be read; bad artifacts inside
 * it become issues, and what bvl does not read becomes a notice. The set keeps every file's text.
 */
export async function readSource(path: string, options: ReadSourceOptions = {}): Promise<ArtifactSet> {
  const draft = options.draft ?? false;
  if (options.text !== undefined) return withTexts(parseStack(options.text, STDIN_NAME, draft), new Map([[STDIN_NAME, options.text]]));
  const abs = resolve(options.cwd ?? '.', path);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(abs);
  } catch (e) {
    throw new SourceError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  if (info.isDirectory()) {
    const root = path.replace(/\/+$/, '');
    const { files, notices } = await readFolder(abs, root, options.overrides);
    const set = collectFolder(files, { root, draft });
    const texts = new Map(files.map((f) => [`${root}/${f.path}`, f.text]));
    return withTexts({ ...set, notices: [...notices, ...(set.notices ?? [])] }, texts);
  }
  const override = options.overrides?.get(path);
  if (override !== undefined) return withTexts(parseStack(override, path, draft), new Map([[path, override]]));
  if (info.size > MAX_FILE_BYTES) throw new SourceError(`cannot read ${path}: ${info.size} bytes is over the ${MAX_FILE_BYTES}-byte limit`);
  const text = await readFile(abs, 'utf8').catch((e: Error) => {
    throw new SourceError(`cannot read ${path}: ${e.message}`);
  });
  return withTexts(parseStack(text, path, draft), new Map([[path, text]]));
}

function parseStack(text: string, file: string, draft: boolean): ArtifactSet {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SourceError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  return collectStack(doc, { file, draft });
}

const withTexts = (set: ArtifactSet, texts: ReadonlyMap<string, string>): ArtifactSet => {
  const out: ArtifactSet = { ...set, texts };
  if (out.notices?.length === 0) delete (out as { notices?: unknown }).notices;
  return out;
};

async function readFolder(
  root: string,
  label: string,
  overrides: ReadonlyMap<string, string> | undefined,
): Promise<{ files: FolderFile[]; notices: SourceNotice[] }> {
  const files: FolderFile[] = [];
  const notices: SourceNotice[] = [];
  const known = Object.keys(FOLDER_DIRS);
  const entries = (await readdir(root, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (!entries.some((e) => e.isDirectory() && Object.hasOwn(FOLDER_DIRS, e.name))) {
    const near = entries.flatMap((e) => (e.isDirectory() ? didYouMean(e.name, known, 1).map((k) => `${e.name}/ → ${k}/`) : []));
    throw new SourceError(`${label} has none of the artifact folders ${known.join(', ')}${near.length ? ` (rename ${near.join(', ')}?)` : ''}`);
  }
  for (const dir of entries) {
    if (dir.name.startsWith('.') || dir.name === 'node_modules') continue;
    if (!dir.isDirectory()) {
      if (dir.name.endsWith('.json'))
        notices.push({ file: `${label}/${dir.name}`, message: `${label}/${dir.name} is not read: a folder's artifacts are read from ${known.join('/, ')}/.` });
      continue;
    }
    if (!Object.hasOwn(FOLDER_DIRS, dir.name)) {
      const near = didYouMean(dir.name, known, 1);
      notices.push({
        file: `${label}/${dir.name}`,
        message: `${label}/${dir.name}/ is not read: it is not an artifact folder${near.length ? ` (did you mean ${near[0]}/?)` : ''}; bvl reads ${known.join('/, ')}/.`,
      });
      continue;
    }
    const inner = (await readdir(join(root, dir.name), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const f of inner) {
      const rel = `${dir.name}/${f.name}`;
      if (!f.isFile() || !f.name.endsWith('.json')) {
        if (!f.name.startsWith('.'))
          notices.push({
            file: `${label}/${rel}`,
            message: f.isDirectory()
              ? `${label}/${rel}/ is not read: bvl reads the *.json files directly inside ${label}/${dir.name}/, not subfolders.`
              : `${label}/${rel} is not read: bvl reads only *.json files.`,
          });
        continue;
      }
      const full = join(root, dir.name, f.name);
      const override = overrides?.get(`${label}/${rel}`);
      const size = override === undefined ? (await stat(full)).size : 0;
      const text = override ?? (size > MAX_FILE_BYTES ? '"file too large"' : await readFile(full, 'utf8'));
      files.push({ path: relative(root, full).split('\\').join('/'), text });
    }
  }
  return { files, notices };
}
