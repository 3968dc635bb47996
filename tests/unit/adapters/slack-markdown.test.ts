import { describe, expect, it } from 'vitest';
import { toSlackMrkdwn } from '../../../src/adapters/slack/markdown.js';

describe('Slack mrkdwn conversion', () => {
  it('escapes control sequences so model text cannot ping a channel or disguise a link', () => {
    expect(toSlackMrkdwn('hey <!channel> look')).toBe('hey &lt;!channel&gt; look');
    expect(toSlackMrkdwn('<https://evil.example|docs.python.org>')).toBe('&lt;https://evil.example|docs.python.org&gt;');
    expect(toSlackMrkdwn('a && b > c')).toBe('a &amp;&amp; b &gt; c');
  });

  it('keeps the user mentions the bot writes, and converts bold, headings and links', () => {
    expect(toSlackMrkdwn('Approved by <@U0123> · **now**')).toBe('Approved by <@U0123> · *now*');
    expect(toSlackMrkdwn('## Plan')).toBe('*Plan*');
    expect(toSlackMrkdwn('see [the docs](https://example.com/a?x=1&y=2)')).toBe('see <https://example.com/a?x=1&amp;y=2|the docs>');
  });

  it('leaves code alone apart from the escaping Slack requires', () => {
    expect(toSlackMrkdwn('`**not bold**` and ```\nif (a < b) {}\n```')).toBe('`**not bold**` and ```\nif (a &lt; b) {}\n```');
  });
});
