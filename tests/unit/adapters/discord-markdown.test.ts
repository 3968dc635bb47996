import { describe, expect, it } from 'vitest';
import { toDiscordMarkdown } from '../../../src/adapters/discord/markdown.js';

describe('Discord markdown', () => {
  it('keeps CommonMark Discord renders (emphasis, lists, code) as it is', () => {
    const text = '**bold** *it* ***both***\n- one\n1. two\n```js\nconst a = 1;\n```';
    expect(toDiscordMarkdown(text)).toBe(text);
  });

  it('turns a table into an aligned code block', () => {
    expect(toDiscordMarkdown('Result:\n| agent | tokens |\n| --- | --- |\n| geordi | 1200 |\n| worf | 80 |')).toBe(
      'Result:\n```\nagent   tokens\n------  ------\ngeordi  1200\nworf    80\n```',
    );
  });

  it('turns an image into a link that does not unfurl, outside code only', () => {
    expect(toDiscordMarkdown('![plot](https://example.com/p.png)')).toBe('[plot](<https://example.com/p.png>)');
    expect(toDiscordMarkdown('`![plot](https://example.com/p.png)`')).toBe('`![plot](https://example.com/p.png)`');
  });
});
