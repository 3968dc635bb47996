import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../../src/core/data/json-syntax-position.js';

describe('findJsonSyntaxError', () => {
  it('returns undefined for valid JSON of every kind', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"], "b": {}} ', '"s"', '0']) {
      expect(findJsonSyntaxError(text), text).toBeUndefined();
      expect(() => JSON.parse(text)).not.toThrow();
    }
  });

  it.each([
    ['{"a": }', 1, 7],
    ['{\n  "a": 1,\n}', 3, 1],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3],
    ['[1, 2', 1, 6],
    ['{"a": 01}', 1, 8],
    ["{'a': 1}", 1, 2],
    ['{"a": 1} x', 1, 10],
    ['', 1, 1],
  ])('locates the error in %j at line %i, column %i', (text, line, column) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(findJsonSyntaxError(text)).toMatchObject({ line, column });
  });
});
