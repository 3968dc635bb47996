/**
 * What `tsuka ask` shows while a turn runs: reply text on stdout, tool lines on stderr on lines of
 * their own (never glued to the reply text), and — on a terminal only — a "thinking… N s"
 * indicator on stderr while the model reasons or has not answered yet, erased as soon as text or a
 * tool line arrives. Piped output gets no indicator, so stdout stays exactly the reply.
 */
import type { AgentEvent } from '../core/agent/agent-events.js';
import { stripControlCharacters } from '../core/safety/control-characters.js';

export interface TerminalOutputOptions {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (the indicator rewrites its line with `\r`). */
  interactive: boolean;
  maskSecrets(text: string): string;
  now?: () => number;
  /** How often the indicator's seconds are redrawn. */
  tickMs?: number;
}

const CLEAR_LINE = '\r\u001b[K';

export function createTerminalOutput(options: TerminalOutputOptions) {
  const now = options.now ?? Date.now;
  let wroteText = false;
  let midLine = false;
  let thinkingSince: number | undefined;
  let shown = false;
  let timer: NodeJS.Timeout | undefined;

  const draw = () => {
    if (thinkingSince === undefined) return;
    options.stderr(`${CLEAR_LINE}thinking… ${Math.floor((now() - thinkingSince) / 1000)} s`);
    shown = true;
  };
  const startThinking = () => {
    if (!options.interactive || thinkingSince !== undefined || midLine) return;
    thinkingSince = now();
    draw();
    timer = setInterval(draw, options.tickMs ?? 1000);
    timer.unref();
  };
  const stopThinking = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    thinkingSince = undefined;
    if (shown) options.stderr(CLEAR_LINE);
    shown = false;
  };
  /** Ends the reply's current line before a tool line, so the two never share one. */
  const breakLine = () => {
    if (!midLine) return;
    options.stdout('\n');
    midLine = false;
  };

  return {
    get wroteText() {
      return wroteText;
    },
    onEvent(event: AgentEvent): void {
      if (event.type === 'model-call-started' || event.type === 'reasoning-delta') startThinking();
      else if (event.type === 'text-delta') {
        stopThinking();
        if (event.text === '') return;
        wroteText = true;
        // A model or a tool it quotes must not drive the terminal (escapes, bidi overrides).
        options.stdout(stripControlCharacters(options.maskSecrets(event.text)));
        midLine = !event.text.endsWith('\n');
      } else if (event.type === 'tool-call-finished') {
        stopThinking();
        breakLine();
        const mark = event.outcome === 'ok' ? '🔧' : event.outcome === 'denied' ? '⛔' : '⚠️';
        options.stderr(`${mark} ${stripControlCharacters(options.maskSecrets(`${event.summary} — ${event.display}`))}\n`);
      } else if (event.type === 'finish') stopThinking();
    },
    /** Stops the indicator and ends the reply's last line. */
    close(): void {
      stopThinking();
      breakLine();
    },
  };
}
