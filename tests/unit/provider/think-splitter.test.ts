import { describe, expect, it } from 'vitest';
import { createThinkSplitter, type SplitPiece, type ThinkSplitterOptions } from '../../../src/core/provider/think-splitter.js';

/** Feeds chunks, then flushes; returns the joined text and reasoning. */
function run(chunks: string[], options?: ThinkSplitterOptions): { text: string; reasoning: string; sawBare: boolean } {
  const splitter = createThinkSplitter(options);
  const pieces: SplitPiece[] = chunks.flatMap((chunk) => splitter.push(chunk));
  pieces.push(...splitter.flush());
  const join = (kind: SplitPiece['kind']): string =>
    pieces
      .filter((piece) => piece.kind === kind)
      .map((piece) => piece.text)
      .join('');
  return { text: join('text'), reasoning: join('reasoning'), sawBare: splitter.sawBareClosingTag };
}

describe('think splitter', () => {
  const whole = '<think>plan it</think>\n\nThe answer.';

  it('separates reasoning wherever the chunks cut the tags', () => {
    for (let cut = 1; cut < whole.length; cut += 1) {
      for (let second = cut + 1; second < whole.length; second += 3) {
        const chunks = [whole.slice(0, cut), whole.slice(cut, second), whole.slice(second)];
        expect(run(chunks), `cuts at ${cut}/${second}`).toMatchObject({ text: 'The answer.', reasoning: 'plan it' });
      }
    }
  });

  it('splits one character at a time', () => {
    expect(run([...whole])).toMatchObject({ text: 'The answer.', reasoning: 'plan it' });
  });

  it('treats an unclosed block as reasoning to the end', () => {
    expect(run(['<think>still', ' going'])).toMatchObject({ text: '', reasoning: 'still going' });
  });

  it('with holding, treats text before a bare </think> as reasoning', () => {
    expect(run(['first ', 'thoughts</th', 'ink>reply'], { holdLimit: Infinity })).toEqual({ text: 'reply', reasoning: 'first thoughts', sawBare: true });
  });

  it('with holding, releases untagged text as reply text at the end', () => {
    expect(run(['just ', 'an answer'], { holdLimit: Infinity })).toMatchObject({ text: 'just an answer', reasoning: '' });
  });

  it('release() lets held text out as reply text at once', () => {
    const splitter = createThinkSplitter({ holdLimit: Infinity });
    expect(splitter.push('Calling a tool')).toEqual([]);
    expect(splitter.release()).toEqual([{ kind: 'text', text: 'Calling a tool' }]);
  });

  it('without holding, passes text through at once but keeps a possible tag start', () => {
    const splitter = createThinkSplitter();
    expect(splitter.push('Hello <th')).toEqual([{ kind: 'text', text: 'Hello ' }]);
    expect(splitter.push('ere')).toEqual([{ kind: 'text', text: '<there' }]);
  });

  it('drops a stray </think> from text already let through, and remembers it', () => {
    expect(run(['answer', '</think> more'])).toEqual({ text: 'answer more', reasoning: '', sawBare: true });
  });

  it('even without holding, sees a bare </think> in the same chunk as the text before it', () => {
    expect(run(['plan</think>answer'])).toEqual({ text: 'answer', reasoning: 'plan', sawBare: true });
  });

  it('handles several think blocks', () => {
    expect(run(['<think>a</think>x<think>b</think>y'])).toMatchObject({ text: 'xy', reasoning: 'ab' });
  });
});
