import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from './catalogue.ts';

const readme = readFileSync(join(import.meta.dirname, '../../../README.md'), 'utf8');

describe('README code catalogue', () => {
  it.each(Object.entries(CATALOGUE))('documents %s with its layer and severity', (code, entry) => {
    expect(readme).toMatch(new RegExp(`\\|\\s*${entry.layer}\\s*\\|\\s*\`${code}\`\\s*\\|\\s*${entry.severity}\\s*\\|`));
  });
});
