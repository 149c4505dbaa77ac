import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CaseProblem, GoldenCaseError, loadGoldenCase, loadGoldenCases, parseGoldenCase } from './golden-case.ts';

// A small, valid case; each malformed variant below changes one thing and must be named by file and pointer.
const BLUEPRINT = {
  objects: [{ name: 'note', fields: { title: { type: 'text' }, state: { type: 'select', options: ['open', 'done'] } } }],
  data: [{ object: 'note', externalId: 'title', records: [{ title: 'A', state: 'open' }] }],
};
const CASE = {
  name: 'notes',
  prompt: 'Build a notes app with a state per note.',
  tags: ['tiny'],
  maxRounds: 2,
  assertions: [{ kind: 'object_exists', role: 'note', match: ['note'] }, { kind: 'seeded_rows', objectRole: 'note', min: 1 }, { kind: 'published' }],
  defects: {
    'bad-state': {
      description: 'A seed state outside the options.',
      ops: [{ op: 'replace', path: '/data/0/records/0/state', value: 'Open' }],
      expect: [{ code: 'seed_value_not_in_options', artifact: { type: 'seed', name: 'note' }, path: '/records/0/state' }],
      repair: 'fixer',
    },
  },
};
const DIR = '/cases/notes';
const parse = (c: unknown, b: unknown = BLUEPRINT, dir = DIR) => parseGoldenCase(dir, JSON.stringify(c), JSON.stringify(b));
const problemsOf = (f: () => unknown): CaseProblem[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof GoldenCaseError) return [...e.problems];
    throw e;
  }
  throw new Error('expected a GoldenCaseError');
};
const edit = (change: (c: typeof CASE & Record<string, unknown>) => void) => {
  const c = structuredClone(CASE) as typeof CASE & Record<string, unknown>;
  change(c);
  return c;
};

describe('parseGoldenCase', () => {
  it('parses a valid case, keeps the blueprint and stamps its version', () => {
    const c = parse(CASE);
    expect(c).toMatchObject({ name: 'notes', dir: DIR, maxRounds: 2, blueprint: BLUEPRINT });
    expect(c.version).toMatch(/^[0-9a-f]{64}$/);
    expect(parse({ ...CASE, defects: undefined }).defects).toEqual({});
  });

  const CASE_FILE = join(DIR, 'case.json');
  const BLUEPRINT_FILE = join(DIR, 'blueprint.json');
  const malformed: Array<[string, () => unknown, CaseProblem[]]> = [
    [
      'an unknown assertion kind',
      () => parse(edit((c) => (c.assertions[2] = { kind: 'is_pretty' } as never))),
      [{ file: CASE_FILE, pointer: '/assertions/2/kind', message: expect.stringContaining('Invalid') }],
    ],
    [
      'a view role without terms or an object role',
      () => parse(edit((c) => c.assertions.push({ kind: 'view_exists', role: 'board' } as never))),
      [{ file: CASE_FILE, pointer: '/assertions/3', message: 'a view role needs match terms or an objectRole' }],
    ],
    [
      'a row assertion on an undeclared role',
      () => parse(edit((c) => (c.assertions[1] = { kind: 'seeded_rows', objectRole: 'ticket', min: 1 }))),
      [{ file: CASE_FILE, pointer: '/assertions/1/objectRole', message: '"ticket" is not a role of a object_exists assertion of this case' }],
    ],
    [
      'a role declared twice',
      () => parse(edit((c) => c.assertions.push({ kind: 'object_exists', role: 'note', match: ['memo'] } as never))),
      [{ file: CASE_FILE, pointer: '/assertions/3/role', message: 'role "note" is declared twice' }],
    ],
    [
      'a code outside the catalogue',
      () => parse(edit((c) => (c.defects['bad-state'].expect[0]!.code = 'bad_state'))),
      [{ file: CASE_FILE, pointer: '/defects/bad-state/expect/0/code', message: 'must be a code of the BuildIssue catalogue' }],
    ],
    [
      'a fixer set that expects a runtime issue',
      () => parse(edit((c) => (c.defects['bad-state'].expect[0]!.code = 'seed_not_applied'))),
      [{ file: CASE_FILE, pointer: '/defects/bad-state/repair', message: expect.stringContaining('repaired by an agent') }],
    ],
    [
      'a defect op that does not apply to the blueprint',
      () => parse(edit((c) => (c.defects['bad-state'].ops[0]!.path = '/data/0/records/7/state'))),
      [{ file: CASE_FILE, pointer: '/defects/bad-state/ops/0', message: expect.stringContaining('does not apply to the blueprint') }],
    ],
    [
      'a case named unlike its folder',
      () => parse(CASE, BLUEPRINT, '/cases/memos'),
      [{ file: '/cases/memos/case.json', pointer: '/name', message: 'the case is named "notes" but its folder is "memos"' }],
    ],
    [
      'a blueprint whose objects key is not an array',
      () => parse(CASE, { ...BLUEPRINT, objects: { note: {} } }),
      [
        { file: BLUEPRINT_FILE, pointer: '/objects', message: '"objects" must be an array of artifacts' },
        { file: BLUEPRINT_FILE, pointer: '/objects', message: 'a blueprint declares at least one object' },
      ],
    ],
    [
      'both files not JSON',
      () => parseGoldenCase(DIR, '{"name": ', '[1,'),
      [
        { file: CASE_FILE, pointer: '', message: expect.stringContaining('not valid JSON') },
        { file: BLUEPRINT_FILE, pointer: '', message: expect.stringContaining('not valid JSON') },
      ],
    ],
    [
      'a case recorded from a session with a defect set (it has no reference blueprint to apply one to)',
      () => parse(edit((c) => (c.origin = { session: 's', tenant: 't', package: 'app', recordedAt: '2026-03-15T10:00:00Z' }))),
      [{ file: CASE_FILE, pointer: '/defects', message: expect.stringContaining('no reference blueprint') }],
    ],
    [
      'an issues_absent assertion with a code outside the catalogue',
      () =>
        parse(
          edit((c) => (c.assertions[2] = { kind: 'issues_absent', issues: [{ code: 'no_such_code', artifact: { type: 'seed', name: 'note' } }] } as never)),
        ),
      [{ file: CASE_FILE, pointer: '/assertions/2/issues/0/code', message: 'must be a code of the BuildIssue catalogue' }],
    ],
  ];
  it.each(malformed)('refuses %s, naming the file and the JSON pointer', (_name, run, expected) => {
    expect(problemsOf(run)).toEqual(expected);
  });

  it('says all of it in the error message, one line per problem', () => {
    expect(() => parse(CASE, BLUEPRINT, '/cases/memos')).toThrow('/cases/memos/case.json at /name: the case is named "notes" but its folder is "memos"');
  });
});

describe('loadGoldenCases', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'bvl-golden-'));
    for (const [dir, c] of [
      ['notes', CASE],
      ['zeta', { ...CASE, name: 'zeta' }],
    ] as const) {
      await mkdir(join(root, dir));
      await writeFile(join(root, dir, 'case.json'), JSON.stringify(c));
      await writeFile(join(root, dir, 'blueprint.json'), JSON.stringify(BLUEPRINT));
    }
    await mkdir(join(root, 'assets'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('loads every folder holding a case.json, sorted, and skips the rest', async () => {
    expect((await loadGoldenCases(root)).map((c) => c.name)).toEqual(['notes', 'zeta']);
  });

  it('reports every broken case at once', async () => {
    await mkdir(join(root, 'broken'));
    await writeFile(join(root, 'broken', 'case.json'), JSON.stringify({ ...CASE, name: 'broken', maxRounds: -1 }));
    await mkdir(join(root, 'lonely'));
    await writeFile(join(root, 'lonely', 'case.json'), JSON.stringify({ ...CASE, name: 'lonely' }));
    const error = await loadGoldenCases(root).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GoldenCaseError);
    expect((error as GoldenCaseError).problems).toEqual([
      { file: join(root, 'broken', 'blueprint.json'), pointer: '', message: 'cannot be read: ENOENT' },
      { file: join(root, 'lonely', 'blueprint.json'), pointer: '', message: 'cannot be read: ENOENT' },
    ]);
    await writeFile(join(root, 'broken', 'blueprint.json'), JSON.stringify(BLUEPRINT));
    await expect(loadGoldenCase(join(root, 'broken'))).rejects.toThrow(`${join(root, 'broken', 'case.json')} at /maxRounds:`);
    await rm(join(root, 'broken'), { recursive: true });
    await rm(join(root, 'lonely'), { recursive: true });
  });

  it('refuses a folder that holds no case, or does not exist', async () => {
    await expect(loadGoldenCases(join(root, 'assets'))).rejects.toThrow('holds no golden case');
    await expect(loadGoldenCases(join(root, 'missing'))).rejects.toThrow('cannot be read: ENOENT');
  });
});
