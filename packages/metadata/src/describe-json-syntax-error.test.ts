import { describe, expect, it } from 'vitest';
import { describeJsonSyntaxError } from './describe-json-syntax-error.ts';

describe('describeJsonSyntaxError', () => {
  const cases: Array<[string, string, string]> = [
    ['a missing value', '{"a": }', 'a value was expected at line 1, column 7'],
    ['a second line', '{\n  "a": 1\n  "b": 2\n}', 'a comma was expected at line 3, column 3'],
    ['a trailing comma', '[1, 2,]', 'a value was expected at line 1, column 7'],
    ['text that is not JSON', 'root:x:0:0:root:/root:/bin/bash', 'an unexpected character at line 1, column 1'],
    ['a comment', '{ // hi\n}', 'a comment (JSON has none) at line 1, column 3'],
    ['an unterminated string', '{"a": "b', 'an unterminated string at line 1, column 7'],
    ['two values', '{} {}', 'the end of the file was expected (something follows the JSON value) at line 1, column 4'],
    ['nothing', '', 'a value was expected at line 1, column 1'],
  ];
  for (const [name, text, expected] of cases)
    it(`${name}: says where, and quotes none of the text`, () => {
      expect(() => JSON.parse(text)).toThrow();
      const said = describeJsonSyntaxError(text);
      expect(said).toBe(expected);
      // JSON.parse's own message repeats the text; this one never does.
      for (const word of text.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 1)) expect(said).not.toContain(word);
    });
});
