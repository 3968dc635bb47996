import { describe, expect, it } from 'vitest';
import { repairJsonArguments } from '../../../src/core/provider/json-repair.js';

describe('repairJsonArguments', () => {
  it('parses valid JSON without marking it repaired', () => {
    expect(repairJsonArguments('{"path": "a.ts", "limit": 20}')).toEqual({ value: { path: 'a.ts', limit: 20 }, repaired: false, notes: [] });
  });

  it('reads empty arguments as an empty object', () => {
    expect(repairJsonArguments('')).toEqual({ value: {}, repaired: false, notes: [] });
    expect(repairJsonArguments('  \n')).toEqual({ value: {}, repaired: false, notes: [] });
  });

  it.each([
    ['a code fence', '```json\n{"path": "a.ts"}\n```', { path: 'a.ts' }],
    ['an unclosed code fence', '```\n{"path": "a.ts"}', { path: 'a.ts' }],
    ['trailing commas', '{"files": ["a", "b",], "recursive": true,}', { files: ['a', 'b'], recursive: true }],
    ['raw newlines and tabs inside a string', '{"content": "line 1\nline 2\tend"}', { content: 'line 1\nline 2\tend' }],
    ['single-quoted keys and strings', "{'path': 'a.ts', 'note': \"it's fine\"}", { path: 'a.ts', note: "it's fine" }],
    ['an apostrophe inside a single-quoted string escaped', "{'text': 'don\\'t'}", { text: "don't" }],
    ['a truncated string', '{"command": "npm te', { command: 'npm te' }],
    ['a truncated array and object', '{"paths": ["a", "b"', { paths: ['a', 'b'] }],
    ['a cut after a colon', '{"path": "a", "limit":', { path: 'a', limit: null }],
    ['a cut inside a key', '{"path": "a", "lim', { path: 'a' }],
    ['bare keys and Python literals', '{path: "a", recursive: True, depth: None}', { path: 'a', recursive: true, depth: null }],
    ['text around the object', 'Arguments: {"q": "x"}', { q: 'x' }],
    ['an extra closing brace', '{"q": {"a": 1}}}', { q: { a: 1 } }],
    ['a regex with an invalid escape', '{"pattern": "\\d+\\.ts"}', { pattern: '\\d+\\.ts' }],
    ['doubly encoded arguments', JSON.stringify(JSON.stringify({ path: 'a.ts' })), { path: 'a.ts' }],
  ])('repairs %s', (_name, text, expected) => {
    const result = repairJsonArguments(text);
    expect(result).toMatchObject({ value: expected, repaired: true });
    // The note of what was repaired is kept.
    expect('notes' in result && result.notes.length).toBeGreaterThan(0);
  });

  it('keeps apostrophes inside double-quoted strings as they are', () => {
    expect(repairJsonArguments('{"text": "it\'s", }')).toMatchObject({ value: { text: "it's" }, repaired: true });
  });

  it.each([
    ['plain prose', 'read the file src/app.ts'],
    ['a lone number', '42 apples'],
  ])('reports %s as unrepairable', (_name, text) => {
    const result = repairJsonArguments(text);
    expect('error' in result && result.error).toMatch(/not (valid )?JSON/);
  });
});
