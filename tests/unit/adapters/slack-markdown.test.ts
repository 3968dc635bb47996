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

  it('writes italics as _x_, bold-italic as *_x_*, and never turns italics into bold', () => {
    expect(toSlackMrkdwn('this is *important* and **loud**')).toBe('this is _important_ and *loud*');
    expect(toSlackMrkdwn('***both*** and _under_')).toBe('*_both_* and _under_');
    expect(toSlackMrkdwn('2 * 3 * 4 stays')).toBe('2 * 3 * 4 stays');
    expect(toSlackMrkdwn('~~gone~~')).toBe('~gone~');
  });

  it('turns bullets into •, keeps numbered lists, and images into links', () => {
    expect(toSlackMrkdwn('- one\n* two\n  + nested\n1. first')).toBe('• one\n• two\n  • nested\n1. first');
    expect(toSlackMrkdwn('![chart](https://example.com/c.png)')).toBe('<https://example.com/c.png|chart>');
    expect(toSlackMrkdwn('![](https://example.com/c.png)')).toBe('<https://example.com/c.png|image>');
  });

  it('renders a table as an aligned preformatted block', () => {
    expect(toSlackMrkdwn('| file | lines |\n|------|------:|\n| **a.ts** | 12 |\n| b.ts | 7 |\nafter')).toBe(
      '```\nfile  lines\n----  -----\na.ts  12\nb.ts  7\n```\nafter',
    );
  });

  it('leaves code alone apart from the escaping Slack requires', () => {
    expect(toSlackMrkdwn('`**not bold**` and ```\nif (a < b) {}\n- not a bullet *x*\n```')).toBe(
      '`**not bold**` and ```\nif (a &lt; b) {}\n- not a bullet *x*\n```',
    );
  });
});
