import { describe, expect, it } from 'vitest';
import { parseNextLine, parseStatusLine, parseVoteLine } from '../../../src/core/workflows/protocol.js';

describe('STATUS: fallback', () => {
  it.each([
    ['STATUS: COMPLETED', 'COMPLETED', ''],
    ['Done.\n**STATUS: COMPLETED** — tests pass', 'COMPLETED', 'tests pass'],
    ['status:continue need more time', 'CONTINUE', 'need more time'],
    ['  Status :  Failed - npm test broke', 'FAILED', 'npm test broke'],
    ['__STATUS__: **FAILED**: no access', 'FAILED', 'no access'],
    ['> STATUS = completed.', 'COMPLETED', ''],
  ])('%j → %s', (text, status, summary) => {
    expect(parseStatusLine(text)).toEqual({ status, summary });
  });

  it('takes the last status line and ignores other words', () => {
    expect(parseStatusLine('STATUS: CONTINUE\nlater\nSTATUS: COMPLETED — ok')?.status).toBe('COMPLETED');
    expect(parseStatusLine('The status is completed')).toBeUndefined();
    expect(parseStatusLine('STATUS: COMPLETATO')).toBeUndefined();
  });
});

describe('VOTE: and NEXT: fallbacks', () => {
  it('parses votes in bold, spaced or lower case', () => {
    expect(parseVoteLine('**VOTE: APPROVE** — ship it')).toEqual({ vote: 'APPROVE', reason: 'ship it' });
    expect(parseVoteLine('vote :change needs tests')).toEqual({ vote: 'CHANGE', reason: 'needs tests' });
    expect(parseVoteLine('VOTE: REJECT')).toEqual({ vote: 'REJECT', reason: '' });
    expect(parseVoteLine('I vote approve')).toBeUndefined();
  });

  it('parses the next speaker or END', () => {
    expect(parseNextLine('NEXT: @worf — audit it')).toEqual({ agent: 'worf', reason: 'audit it' });
    expect(parseNextLine('**Next:** Geordi')).toEqual({ agent: 'Geordi', reason: '' });
    expect(parseNextLine('NEXT: end')).toEqual({ agent: 'END', reason: '' });
    expect(parseNextLine('who is next?')).toBeUndefined();
  });
});
