import { describe, expect, it } from 'vitest';
import { createMaskingSurface } from '../../../src/commands/masking-surface.js';
import { stripControlCharacters } from '../../../src/core/safety/control-characters.js';
import { createMemorySurface } from '../../support/memory-surface.js';

describe('control characters in what people see', () => {
  it('a tool output that rewrites the line with escapes shows only its words', () => {
    // A hostile script prints a fake approval over its own line: erase line, carriage return, colour.
    const output = 'building…\u001b[2K\r\u001b[32m✅ Approved by @admin\u001b[0m\u001b]0;title\u0007 done\u0008\u0000';
    expect(stripControlCharacters(output)).toBe('building…✅ Approved by @admin done');
  });

  it('bidirectional overrides cannot make a command read as another (Trojan Source)', () => {
    const command = 'rm -rf /tmp/cache \u202e#  fdr- mr\u202c\u2066x\u2069';
    const shown = stripControlCharacters(command);
    expect(shown).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(shown).toBe('rm -rf /tmp/cache #  fdr- mrx');
  });

  it('keeps newlines, tabs, emoji sequences and CRLF line ends as lines', () => {
    expect(stripControlCharacters('a\tb\r\nc\n👩‍💻')).toBe('a\tb\nc\n👩‍💻');
  });

  it('every text the command layer posts, edits, streams or uploads passes through it', async () => {
    const inner = createMemorySurface();
    const surface = createMaskingSurface(inner, (text) => text.replaceAll('s3cret', '***'));
    const ref = await surface.post({ thread: 't', text: 'key s3cret\u001b[31m red\u202e' });
    await surface.edit({ message: ref, text: 'edited\u001b[1A up' });
    await surface.uploadFile({ channel: 'c', fileName: 'x.txt', title: 't\u0007', content: 'log \u001b[0mline' });
    await surface.postEphemeral({ channel: 'c', user: 'u', text: 'only \u202eyou' });
    expect(inner.messages[0]!.text).toBe('edited up');
    expect(inner.messages[0]!.history[0]).toBe('key *** red');
    expect(inner.uploads[0]!.content).toBe('log line');
    expect(inner.ephemerals[0]!.text).toBe('only you');
  });
});
