import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pointer } from '@bvl/metadata';
import { applyPatch } from '@bvl/verify';
import type { z } from 'zod';
import { type Blueprint, BlueprintSchema, type CaseFile, CaseFileSchema } from './case-file.ts';
import { caseVersion } from './case-version.ts';

/** A loaded golden case: its `case.json`, its blueprint, where it was read from and its version hash. */
export interface GoldenCase extends CaseFile {
  readonly blueprint: Blueprint;
  /** The case folder. */
  readonly dir: string;
  /** sha256 of the case's content (see caseVersion): changes whenever anything graded changes. */
  readonly version: string;
}

/** The file of a case folder that holds everything but the blueprint. */
export const CASE_FILE = 'case.json';
/** The file of a case folder that holds the reference blueprint. */
export const BLUEPRINT_FILE = 'blueprint.json';

/** One problem of a malformed case: the file, the JSON pointer inside it, and what is wrong. */
export interface CaseProblem {
  readonly file: string;
  readonly pointer: string;
  readonly message: string;
}

/** A golden case (or a folder of them) that cannot be loaded; `problems` names each file and pointer. */
export class GoldenCaseError extends Error {
  constructor(readonly problems: readonly CaseProblem[]) {
    super(problems.map((p) => `${p.file}${p.pointer ? ` at ${p.pointer}` : ''}: ${p.message}`).join('\n'));
    this.name = 'GoldenCaseError';
  }
}

/** At most this many schema problems are listed per file; the first ones are the ones to fix. */
const MAX_PROBLEMS = 20;

function zodProblems(file: string, error: z.ZodError): CaseProblem[] {
  return error.issues.slice(0, MAX_PROBLEMS).map((i) => ({
    file,
    pointer: pointer(...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))),
    message: i.message,
  }));
}

function parseJson(file: string, text: string): { ok: true; value: unknown } | { ok: false; problem: CaseProblem } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, problem: { file, pointer: '', message: `not valid JSON: ${(e as Error).message}` } };
  }
}

/**
 * Parses a golden case from the texts of its two files (pure: no I/O). Checks `case.json` against
 * {@link CaseFileSchema} and the blueprint against {@link BlueprintSchema}, that the case is named
 * after its folder, and that every defect set's operations apply to the blueprint. Throws a
 * {@link GoldenCaseError} naming each file and JSON pointer at fault.
 */
export function parseGoldenCase(dir: string, caseText: string, blueprintText: string): GoldenCase {
  const caseFile = join(dir, CASE_FILE);
  const blueprintFile = join(dir, BLUEPRINT_FILE);
  const problems: CaseProblem[] = [];
  const rawCase = parseJson(caseFile, caseText);
  const rawBlueprint = parseJson(blueprintFile, blueprintText);
  if (!rawCase.ok) problems.push(rawCase.problem);
  if (!rawBlueprint.ok) problems.push(rawBlueprint.problem);
  const parsedCase = rawCase.ok ? CaseFileSchema.safeParse(rawCase.value) : undefined;
  const parsedBlueprint = rawBlueprint.ok ? BlueprintSchema.safeParse(rawBlueprint.value) : undefined;
  if (parsedCase && !parsedCase.success) problems.push(...zodProblems(caseFile, parsedCase.error));
  if (parsedBlueprint && !parsedBlueprint.success) problems.push(...zodProblems(blueprintFile, parsedBlueprint.error));
  if (!parsedCase?.success || !parsedBlueprint?.success) throw new GoldenCaseError(problems);
  const c = parsedCase.data;
  const blueprint = parsedBlueprint.data;
  if (c.name !== basename(dir))
    problems.push({ file: caseFile, pointer: '/name', message: `the case is named "${c.name}" but its folder is "${basename(dir)}"` });
  for (const [name, defect] of Object.entries(c.defects)) {
    const applied = applyPatch(blueprint, defect.ops);
    if (!applied.ok)
      problems.push({
        file: caseFile,
        pointer: pointer('defects', name, 'ops', applied.opIndex),
        message: `does not apply to the blueprint: ${applied.error}`,
      });
  }
  if (problems.length > 0) throw new GoldenCaseError(problems);
  return { ...c, blueprint, dir, version: caseVersion({ ...c, blueprint }) };
}

/** Reads and parses the golden case in `dir` (`case.json` + `blueprint.json`); see {@link parseGoldenCase}. */
export async function loadGoldenCase(dir: string): Promise<GoldenCase> {
  const read = async (file: string): Promise<string> => {
    try {
      return await readFile(join(dir, file), 'utf8');
    } catch (e) {
      throw new GoldenCaseError([
        { file: join(dir, file), pointer: '', message: `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` },
      ]);
    }
  };
  const [caseText, blueprintText] = await Promise.all([read(CASE_FILE), read(BLUEPRINT_FILE)]);
  return parseGoldenCase(dir, caseText, blueprintText);
}

/**
 * Loads every golden case under `root` (each sub-folder holding a `case.json`), sorted by name.
 * Every malformed case is reported at once, in one {@link GoldenCaseError}.
 */
export async function loadGoldenCases(root: string): Promise<GoldenCase[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (e) {
    throw new GoldenCaseError([{ file: root, pointer: '', message: `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }]);
  }
  const dirs = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  const withCase = (await Promise.all(dirs.map(async (d) => ((await readdir(join(root, d))).includes(CASE_FILE) ? d : undefined)))).filter(
    (d): d is string => d !== undefined,
  );
  const problems: CaseProblem[] = [];
  const cases: GoldenCase[] = [];
  for (const d of withCase.sort()) {
    try {
      cases.push(await loadGoldenCase(join(root, d)));
    } catch (e) {
      if (!(e instanceof GoldenCaseError)) throw e;
      problems.push(...e.problems);
    }
  }
  if (problems.length > 0) throw new GoldenCaseError(problems);
  if (cases.length === 0) throw new GoldenCaseError([{ file: root, pointer: '', message: `holds no golden case (no sub-folder with a ${CASE_FILE})` }]);
  return cases;
}
