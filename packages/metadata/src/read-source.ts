import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { ArtifactSet, SourceNotice } from './artifact.ts';
import { collectFolder, collectStack, FOLDER_DIRS, type FolderFile } from './collect-artifacts.ts';
import { describeJsonSyntaxError } from './describe-json-syntax-error.ts';
import { didYouMean } from './edit-distance.ts';
import { withDuplicateKeys } from './find-duplicate-keys.ts';
import { countKeys, INPUT_LIMITS, scanJson, setProblem, shapeProblem } from './input-bounds.ts';
import { SourceError, SourceTexts } from './source-texts.ts';

export { SourceError };

/** Largest stack file or artifact file bvl reads (bytes). */
export const MAX_FILE_BYTES = INPUT_LIMITS.fileBytes;

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
 * it become issues, and what bvl does not read becomes a notice. The set's `texts` give every
 * file's text: a file on disk is read again when its text is asked for (see {@link SourceTexts}),
 * so the set does not hold it; a text bvl was handed (standard input, overrides) is held.
 */
export async function readSource(path: string, options: ReadSourceOptions = {}): Promise<ArtifactSet> {
  const draft = options.draft ?? false;
  if (options.text !== undefined) return withTexts(parseStack(options.text, STDIN_NAME, draft), new SourceTexts().hold(STDIN_NAME, options.text));
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
    let set = collectFolder(files, { root, draft });
    for (const f of files) set = withDuplicateKeys(set, f.text, `${root}/${f.path}`, draft);
    const texts = new SourceTexts();
    for (const f of files)
      if (f.stat) texts.stamp(`${root}/${f.path}`, join(abs, f.path), f.stat, f.text.length);
      else texts.hold(`${root}/${f.path}`, f.text);
    return withTexts(bounded(path, { ...set, notices: [...notices, ...(set.notices ?? [])] }), texts);
  }
  // A FIFO or device would block the read forever (or never end): only regular files are read.
  if (!info.isFile()) throw new SourceError(`cannot read ${path}: it is not a regular file (a FIFO, socket or device); give a stack file or a folder`);
  const override = options.overrides?.get(path);
  if (override !== undefined) return withTexts(parseStack(override, path, draft), new SourceTexts().hold(path, override));
  if (info.size > MAX_FILE_BYTES) throw new SourceError(`cannot read ${path}: ${info.size} bytes is over the ${MAX_FILE_BYTES}-byte limit`);
  // The text is gone before the set is built (read, scanned and parsed in a call of its own, which
  // keeps it only when a key may repeat): the text, its parse and the set are never alive together.
  const parsed = await readStackFile(abs, path);
  return withTexts(collectParsed(parsed, path, draft), new SourceTexts().stamp(path, abs, info, parsed.length));
}

/** A stack file's text parsed: the text itself only when an object of it may repeat a key. */
interface ParsedStack {
  readonly doc: unknown;
  /** Object members the text writes ({@link scanJson}). */
  readonly keys: number;
  /** Characters of the text. */
  readonly length: number;
  readonly text?: string | undefined;
}

async function readStackFile(abs: string, path: string): Promise<ParsedStack> {
  const text = await readFile(abs, 'utf8').catch((e: Error) => {
    throw new SourceError(`cannot read ${path}: ${e.message}`);
  });
  return parseText(text, path);
}

function parseText(text: string, file: string): ParsedStack {
  // Counted before parsing: a parse of a hostile file is where the memory would go.
  const scanned = scanJson(text);
  const shape = shapeProblem(scanned, true);
  if (shape) throw new SourceError(`${file} ${shape}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new SourceError(`${file} is not valid JSON: ${describeJsonSyntaxError(text)}`);
  }
  // Fewer own keys than members written: some object repeats a key, and the scan for it needs the text.
  const repeats = countKeys(doc) !== scanned.keys;
  return { doc, keys: scanned.keys, length: text.length, ...(repeats ? { text } : {}) };
}

function collectParsed(parsed: ParsedStack, file: string, draft: boolean): ArtifactSet {
  const set = bounded(file, collectStack(parsed.doc, { file, draft }));
  return parsed.text === undefined ? set : withDuplicateKeys(set, parsed.text, file, draft, { doc: parsed.doc, keys: parsed.keys });
}

function parseStack(text: string, file: string, draft: boolean): ArtifactSet {
  return collectParsed(parseText(text, file), file, draft);
}

/** The set, or a SourceError when it is past a limit of {@link INPUT_LIMITS}. */
function bounded(path: string, set: ArtifactSet): ArtifactSet {
  const problem = setProblem(set);
  if (problem) throw new SourceError(`${path} ${problem}`);
  return set;
}

const withTexts = (set: ArtifactSet, texts: SourceTexts): ArtifactSet => {
  const out: ArtifactSet = { ...set, texts };
  if (out.notices?.length === 0) delete (out as { notices?: unknown }).notices;
  return out;
};

/** A folder file as read: its stat when it was read from disk. */
type ReadFolderFile = FolderFile & { readonly stat?: { readonly size: number; readonly mtimeMs: number; readonly ino: number } };

async function readFolder(
  root: string,
  label: string,
  overrides: ReadonlyMap<string, string> | undefined,
): Promise<{ files: ReadFolderFile[]; notices: SourceNotice[] }> {
  const files: ReadFolderFile[] = [];
  const notices: SourceNotice[] = [];
  const known = Object.keys(FOLDER_DIRS);
  const entries = (await readdir(root, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (!entries.some((e) => e.isDirectory() && Object.hasOwn(FOLDER_DIRS, e.name))) {
    const near = entries.flatMap((e) => (e.isDirectory() ? didYouMean(e.name, known, 1).map((k) => `${e.name}/ → ${k}/`) : []));
    throw new SourceError(`${label} has none of the artifact folders ${known.join(', ')}${near.length ? ` (rename ${near.join(', ')}?)` : ''}`);
  }
  let bytes = 0;
  let items = 0;
  let containers = 0;
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
      if (!f.isFile() && !f.isDirectory() && f.name.endsWith('.json'))
        throw new SourceError(
          f.isSymbolicLink()
            ? `cannot read ${label}: ${rel} is a symbolic link; bvl reads only the regular files of a folder (copy the file in)`
            : `cannot read ${label}: ${rel} is not a regular file (a FIFO, socket or device)`,
        );
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
      const info = override === undefined ? await stat(full) : undefined;
      const size = info ? info.size : override!.length;
      bytes += Math.min(size, MAX_FILE_BYTES);
      if (bytes > INPUT_LIMITS.folderBytes)
        throw new SourceError(`cannot read ${label}: its files hold more than the ${INPUT_LIMITS.folderBytes}-byte limit of a folder`);
      const text = override ?? (size > MAX_FILE_BYTES ? '"file too large"' : await readFile(full, 'utf8'));
      // Counted before parsing, across the folder: a parse of hostile files is where the memory would go.
      const shape = scanJson(text);
      items += Math.max(1, shape.listItems);
      containers += shape.containers;
      const problem = shapeProblem({ containers, listItems: 0, stackItems: items, keys: 0 }, true);
      if (problem) throw new SourceError(`${label} ${problem}`);
      // A file read from disk is read again when its text is wanted (not a placeholder for a file too large).
      files.push({ path: relative(root, full).split('\\').join('/'), text, ...(info && size <= MAX_FILE_BYTES ? { stat: info } : {}) });
    }
  }
  return { files, notices };
}
