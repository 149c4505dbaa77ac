import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countKeys, INPUT_LIMITS, scanJson } from './input-bounds.ts';
import { readSource, SourceError } from './read-source.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bvl-bounds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const file = async (name: string, text: string): Promise<string> => {
  const path = join(dir, name);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
  return path;
};
const many = (n: number, item: string): string => Array.from({ length: n }, () => item).join(',');

describe('scanJson', () => {
  it('counts containers, members and top-level items without parsing, strings with brackets and escapes included', () => {
    expect(scanJson('{"objects":[{},{"a":"x]},\\"["}],"views":[1,"s",[2]]}')).toEqual({ containers: 6, listItems: 0, stackItems: 5, keys: 3 });
    expect(scanJson('[{}, {}, []]')).toEqual({ containers: 4, listItems: 3, stackItems: 0, keys: 0 });
    expect(scanJson('{"objects":[]}')).toEqual({ containers: 2, listItems: 0, stackItems: 0, keys: 1 });
    // A quote after an even run of backslashes closes the string; after an odd run it is escaped.
    expect(scanJson('{"a\\\\":"b\\":[{",  "c" : {"d:":[]}}')).toEqual({ containers: 3, listItems: 0, stackItems: 0, keys: 3 });
    expect(scanJson('["x\\\\\\"]", {"y":1}]')).toEqual({ containers: 2, listItems: 2, stackItems: 0, keys: 1 });
  });

  it('counts as many members as the parse keeps own keys exactly when no object repeats a key', () => {
    const texts = ['{"a":1,"b":{"c":[{"d":2},{"d":3}]}}', '{"__proto__":{"x":1},"y":[]}', '{"a:b":"c:d","e":{}}', '[1,{"k":"v"}]', '"s"', '{}'];
    for (const t of texts) expect(countKeys(JSON.parse(t)), t).toBe(scanJson(t).keys);
    const repeated = ['{"a":1,"a":2}', '{"x":{"b":1,"c":2,"b":3}}', '[{"k":1},{"k":2,"k":3}]', '{"__proto__":1,"__proto__":2}'];
    for (const t of repeated) expect(countKeys(JSON.parse(t)), t).toBeLessThan(scanJson(t).keys);
  });

  it('counts keys of a value nested deeper than the call stack reaches', () => {
    const deep = `${'{"a":['.repeat(100_000)}${']}'.repeat(100_000)}`;
    expect(countKeys(JSON.parse(deep))).toBe(100_000);
    expect(scanJson(deep).keys).toBe(100_000);
  });
});

describe('readSource bounds', () => {
  it('refuses a million empty objects (4 MB) before parsing them, with bounded memory', async () => {
    const path = await file('million.json', `{"objects":[${many(1_000_000, '{}')}]}`);
    const before = process.memoryUsage().heapUsed;
    const error = await readSource(path).catch((e: unknown) => e);
    const grown = process.memoryUsage().heapUsed - before;
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toBe(
      `${path} holds 1,000,000 artifacts; bvl reads at most 20,000 per input (objects, views, dashboards, datasets, apps, seeds, reports and pages together). Split the app into packages`,
    );
    // The file's text (8 MB as UTF-16) and the scan: nowhere near what a million parsed objects take.
    expect(grown).toBeLessThan(48 * 1024 * 1024);
  });

  it('refuses a FIFO (which would block the read forever), as the input and inside a folder', async () => {
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    await expect(readSource(fifo)).rejects.toThrow(`cannot read ${fifo}: it is not a regular file (a FIFO, socket or device); give a stack file or a folder`);
    const folder = join(dir, 'app');
    await file('app/objects/a.json', '{"name":"a","fields":{}}');
    execFileSync('mkfifo', [join(folder, 'objects', 'b.json')]);
    await expect(readSource(folder)).rejects.toThrow(`cannot read ${folder}: objects/b.json is not a regular file (a FIFO, socket or device)`);
  });

  it('refuses too many fields, seed records, nested containers, or artifacts in a folder file', async () => {
    const fields = `{${Array.from({ length: INPUT_LIMITS.fields + 1 }, (_, i) => `"f${i}":{"type":"text"}`).join(',')}}`;
    const wide = await file('wide.json', `{"objects":[{"name":"o","fields":${fields}}]}`);
    await expect(readSource(wide)).rejects.toThrow(`${wide} declares 100,001 fields; bvl reads at most 100,000 per input. Split the app into packages`);
    const seeded = await file('seeded.json', `{"data":[{"object":"o","records":[${many(INPUT_LIMITS.records + 1, '{}')}]}]}`);
    await expect(readSource(seeded)).rejects.toThrow(
      `${seeded} holds 500,001 seed records; bvl reads at most 500,000 per input. Seed a sample, and load bulk data another way`,
    );
    const deep = await file('deep.json', `{"objects":[{"name":"o","x":[${many(INPUT_LIMITS.containers, '[]')}]}]}`);
    await expect(readSource(deep)).rejects.toThrow(`${deep} holds more than 1,000,000 JSON objects and arrays; bvl reads at most that many per input.`);
    await file('many/objects/all.json', `[${many(INPUT_LIMITS.artifacts + 1, '{}')}]`);
    await expect(readSource(join(dir, 'many'))).rejects.toThrow(`${join(dir, 'many')} holds 20,001 artifacts; bvl reads at most 20,000 per input`);
  });

  it('reads an input at the limits', async () => {
    const ok = await file(
      'ok.json',
      `{"data":[{"object":"o","records":[${many(1000, '{"name":"x"}')}]}],"objects":[{"name":"o","fields":{"name":{"type":"text"}}}]}`,
    );
    const set = await readSource(ok);
    expect(set.artifacts.map((a) => a.type)).toEqual(['object', 'seed']);
  });
});
