import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTerminalOutput } from '../../../src/cli/terminal-output.js';
import { main } from '../../../src/cli/main.js';

function capture(interactive: boolean) {
  const out: string[] = [];
  const err: string[] = [];
  let clock = 0;
  const terminal = createTerminalOutput({
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    interactive,
    maskSecrets: (text) => text.replace('hunter2-secret', '[secret masked]'),
    now: () => clock,
    tickMs: 1000,
  });
  return {
    terminal,
    out,
    err,
    advance: (ms: number) => {
      clock += ms;
      vi.advanceTimersByTime(ms);
    },
  };
}

const toolFinished = { type: 'tool-call-finished', outcome: 'ok', summary: 'read_file a.txt', display: '1 KB' } as const;

afterEach(() => vi.useRealTimers());

describe('tsuka ask terminal output', () => {
  it('a tool line or reply cannot drive the terminal nor show a secret (escapes, bidi overrides, masking)', () => {
    const { terminal, out, err } = capture(false);
    terminal.onEvent({ ...toolFinished, summary: 'read_file \u202ecod.sh', display: 'hunter2-secret\u001b[2K\r✅ approved' } as never);
    terminal.onEvent({ type: 'text-delta', text: 'done\u001b]0;pwned\u0007 \u001b[31mred\n' });
    expect(err.join('')).toBe('🔧 read_file cod.sh — [secret masked]✅ approved\n');
    expect(out.join('')).toBe('done red\n');
  });

  it('shows "thinking… N s" on a terminal while the model reasons, and erases it when text arrives', () => {
    vi.useFakeTimers();
    const { terminal, out, err, advance } = capture(true);
    terminal.onEvent({ type: 'model-call-started', round: 1 });
    terminal.onEvent({ type: 'reasoning-delta', text: 'hmm' });
    advance(3000);
    expect(err.at(-1)).toBe('\r\u001b[Kthinking… 3 s');
    terminal.onEvent({ type: 'text-delta', text: 'The answer' });
    expect(err.at(-1)).toBe('\r\u001b[K');
    advance(5000);
    expect(err.at(-1)).toBe('\r\u001b[K');
    expect(out).toEqual(['The answer']);
  });

  it('prints no indicator when stderr is not a terminal, so piped output stays clean', () => {
    vi.useFakeTimers();
    const { terminal, err, advance } = capture(false);
    terminal.onEvent({ type: 'reasoning-delta', text: 'hmm' });
    advance(5000);
    expect(err).toEqual([]);
  });

  it('puts a tool line on its own line, never glued to the reply text, and masks the text', () => {
    const { terminal, out, err } = capture(false);
    terminal.onEvent({ type: 'text-delta', text: 'Let me look at hunter2-secret' });
    terminal.onEvent(toolFinished as never);
    terminal.onEvent({ type: 'text-delta', text: 'Done.' });
    terminal.close();
    expect(out).toEqual(['Let me look at [secret masked]', '\n', 'Done.', '\n']);
    expect(err).toEqual(['🔧 read_file a.txt — 1 KB\n']);
  });
});

describe('tsuka --version', () => {
  it('prints the package version', async () => {
    const out: string[] = [];
    const status = await main(['--version'], { stdout: (text) => out.push(text), stderr: () => undefined, environment: {}, workingDirectory: process.cwd() });
    expect(status).toBe(0);
    expect(out.join('')).toMatch(/^tsuka \d+\.\d+\.\d+\n$/);
  });
});
