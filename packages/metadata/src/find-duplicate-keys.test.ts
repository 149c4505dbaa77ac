import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectStack } from './collect-artifacts.ts';
import { findDuplicateKeys } from './find-duplicate-keys.ts';
import { buildGraph } from './graph.ts';
import { locateIssues } from './locate-issues.ts';
import { readSource } from './read-source.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bvl-dupkeys-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('findDuplicateKeys', () => {
  it.each([
    { name: 'none', text: '{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}', want: [] },
    { name: 'a top-level key', text: '{"objects":[],\n"objects":[]}', want: [['/objects', 'objects', 1, 2]] },
    { name: 'inside an array element, named by its index', text: '[{"x":1},{"name":"a","name":"b"}]', want: [['/1/name', 'name', 1, 1]] },
    { name: 'keys compare decoded, as JSON.parse compares them', text: '{"f":{"a":1,"\\u0061":2}}', want: [['/f/a', 'a', 1, 1]] },
    { name: 'a key with / and ~ is escaped in the pointer', text: '{"a/b~":1,"a/b~":2}', want: [['/a~1b~0', 'a/b~', 1, 1]] },
    {
      name: 'three times: each repeat once',
      text: '{"k":1,"k":2,"k":3}',
      want: [
        ['/k', 'k', 1, 1],
        ['/k', 'k', 1, 1],
      ],
    },
  ])('$name', ({ text, want }) => {
    expect(findDuplicateKeys(text).map((d) => [d.pointer, d.key, d.first.line, d.again.line])).toEqual(want);
  });

  it('text nested deeper than the call stack holds: the repeats found before the depth, no throw', () => {
    const deep = `{"name":"a","name":"b","f":${'['.repeat(100_000)}1${']'.repeat(100_000)}}`;
    expect(findDuplicateKeys(deep).map((d) => d.pointer)).toEqual(['/name']);
  });
});

const stackFile = async (name: string, text: string) => {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
};
const problems = (set: Awaited<ReturnType<typeof readSource>>) => set.problems.map((p) => [p.code, p.type, p.name, p.path ?? '', p.message]);

describe('duplicate keys in what bvl reads are findings, never silence', () => {
  it('two "objects" keys in a stack: each object of the first is an invalid_artifact (it would be dropped)', async () => {
    const path = await stackFile(
      'two-objects.json',
      '{\n  "objects": [{ "name": "acct", "fields": {} }, { "name": "deal", "fields": {} }],\n  "objects": [{ "name": "task", "fields": {} }]\n}\n',
    );
    const set = await readSource(path);
    expect(set.artifacts.map((a) => a.name)).toEqual(['task']);
    const dropped = (name: string) =>
      `The stack has the key "objects" twice (${path} line 2 and line 3): JSON keeps only the last, so object "${name}" of the first "objects" is dropped without a word.`;
    expect(problems(set)).toEqual([
      ['invalid_artifact', 'object', 'acct', '', dropped('acct')],
      ['invalid_artifact', 'object', 'deal', '', dropped('deal')],
    ]);
    // They reach the issue stream (and the gate) as errors, located in the file.
    const { graph, issues } = buildGraph(set);
    const located = locateIssues(issues, graph, [set]);
    expect(located.map((i) => [i.code, i.severity, i.artifact.name, i.location?.file, i.location?.pointer])).toEqual([
      ['invalid_artifact', 'error', 'acct', path, '/objects'],
      ['invalid_artifact', 'error', 'deal', path, '/objects'],
    ]);
  });

  it('a key twice inside an artifact: an invalid_artifact of that artifact at the member, located', async () => {
    const path = await stackFile('two-types.json', '{"objects": [\n  { "name": "acct", "fields": { "n": { "type": "text", "type": "number" } } }\n]}\n');
    const set = await readSource(path);
    expect(problems(set)).toEqual([
      [
        'invalid_artifact',
        'object',
        'acct',
        '/fields/n/type',
        `The object has the key "type" twice at /fields/n/type (${path} line 2 and line 2): JSON keeps only the last value, so the first is dropped without a word.`,
      ],
    ]);
    const { graph, issues } = buildGraph(set);
    expect(locateIssues(issues, graph, [set]).map((i) => [i.path, i.location?.pointer, i.location?.line])).toEqual([
      ['/fields/n/type', '/objects/0/fields/n/type', 2],
    ]);
  });

  it('in a folder file, and from standard input', async () => {
    const folder = join(dir, 'app');
    await mkdir(join(folder, 'objects'), { recursive: true });
    await writeFile(join(folder, 'objects', 'acct.json'), '{"name": "acct", "fields": {"a": {"type": "text"}, "a": {"type": "number"}}}');
    const set = await readSource(folder);
    expect(problems(set).map(([code, type, name, path]) => [code, type, name, path])).toEqual([['invalid_artifact', 'object', 'acct', '/fields/a']]);
    const stdin = await readSource('-', { text: '{"views": [], "views": []}' });
    expect(stdin.problems).toEqual([]);
    expect(stdin.notices?.map((n) => n.message)).toContain(
      '<stdin> has the key "views" twice at /views (lines 1 and 1): JSON keeps only the last; the first is not read.',
    );
  });
});

describe('a key named "__proto__" is an invalid_artifact', () => {
  it.each([
    {
      name: 'a field',
      doc: '{"objects":[{"name":"acct","fields":{"name":{"type":"text"},"__proto__":{"type":"text"}}}]}',
      want: ['object', 'acct', '/fields/__proto__'],
    },
    {
      name: 'a seed record key',
      doc: '{"data":[{"object":"acct","externalId":"name","records":[{"name":"a","__proto__":"x"}]}]}',
      want: ['seed', 'acct', '/records/0/__proto__'],
    },
  ])('$name', ({ doc, want }) => {
    const set = collectStack(JSON.parse(doc));
    expect(set.problems.map((p) => [p.type, p.name, p.path])).toEqual([want]);
    expect(set.problems[0]!.message).toContain('the key "__proto__", which no JavaScript record holds');
    expect(set.problems[0]!.fix).toBe('Rename the key "__proto__" (e.g. "proto"); no field, option or record key may be named so.');
  });
});

describe('a hostile file nested 100,000 deep with a repeated key', () => {
  const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
  it('in an artifact: findings (the key twice; too deep), never a crash', async () => {
    const set = await readSource(await stackFile('deep.json', `{"objects":[{"name":"acct","name":"acct2","fields":{"t":{"type":"text","x":${deep}}}}]}`));
    expect(set.problems.map((p) => [p.code, p.name, p.path ?? '', p.message.slice(0, 40)])).toEqual([
      ['invalid_artifact', 'acct2', '', 'The object body is nested more than 64 l'],
      ['invalid_artifact', 'acct2', '/name', 'The object has the key "name" twice at /'],
    ]);
    const { graph, issues } = buildGraph(set);
    const located = locateIssues(issues, graph, [set]);
    expect(located.map((i) => [i.code, i.path, i.location?.line])).toEqual([
      ['invalid_artifact', '', undefined],
      ['invalid_artifact', '/name', 1],
    ]);
  });

  it('a repeat the scan cannot reach past that depth: a notice that a key repeats somewhere, never silence', async () => {
    const file = await stackFile('deep-stack.json', `{"objects":[{"name":"acct","x":${deep}}],"objects":[]}`);
    const set = await readSource(file);
    expect(set.notices?.map((n) => n.message)).toContainEqual(
      expect.stringContaining(`${file} repeats a key (it writes more members than JSON keeps) and nests too deep`),
    );
  });
});
