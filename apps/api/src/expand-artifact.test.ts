import { describe, expect, it } from 'vitest';
import { expandArtifact } from './expand-artifact.ts';
import { ApiError } from './to-error-response.ts';

const names = (a: ReturnType<typeof expandArtifact>) => a.map((x) => `${x.type}:${x.name}`);

describe('expandArtifact', () => {
  it.each([
    ['an object, named by its body', 'object', 'exp_a', { name: 'exp_a', fields: {} }, ['object:exp_a']],
    ['an object without a name: the path names it', 'object', 'exp_a', { fields: {} }, ['object:exp_a']],
    [
      'an object with listViews: they are views too',
      'object',
      'exp_a',
      { name: 'exp_a', listViews: { mine: { type: 'grid' } } },
      ['object:exp_a', 'view:exp_a.mine'],
    ],
    ['a seed, named by its object', 'seed', 'exp_a', { object: 'exp_a', records: [] }, ['seed:exp_a']],
    ['a view item', 'view', 'exp_a.recent', { name: 'exp_a.recent', object: 'exp_a', viewKind: 'list', config: { type: 'grid' } }, ['view:exp_a.recent']],
    [
      'a view container, by its object',
      'view',
      'exp_a',
      { list: { type: 'grid', data: { provider: 'object', object: 'exp_a' } }, form: { type: 'simple' } },
      ['view:exp_a.default', 'view:exp_a.form'],
    ],
  ] as const)('%s', (_what, type, name, body, expected) => {
    const out = expandArtifact(type, name, body);
    expect(names(out)).toEqual(expected);
    expect(out.every((a) => a.draft)).toBe(true);
  });

  it.each([
    ['a body naming another artifact', 'object', 'exp_a', { name: 'exp_b' }, /stages object "exp_b", not "exp_a"/, 'body.name'],
    ['a seed of another object', 'seed', 'exp_a', { object: 'exp_b', records: [] }, /stages seed "exp_b"/, 'body.object'],
    [
      'a container of another object',
      'view',
      'exp_a',
      { list: { type: 'grid', data: { provider: 'object', object: 'exp_b' } } },
      /exp_b\.default/,
      'body.name',
    ],
    ['a body that is no object', 'dataset', 'exp_a', 'text', /not a JSON object/, 'body'],
    ['a body with a NUL', 'object', 'exp_a', { name: 'exp_a', label: 'a\u0000b' }, /NUL/, 'body.label'],
  ] as const)('refuses %s with a 400 naming where', (_what, type, name, body, message, path) => {
    try {
      expandArtifact(type, name, body);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).code).toBe('invalid_request');
      expect((e as ApiError).message).toMatch(message);
      expect((e as ApiError).problems?.[0]?.path).toBe(path);
    }
  });
});
