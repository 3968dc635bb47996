/**
 * The text fallbacks of the coordination protocol (design §5, §6.13): `STATUS: COMPLETED|CONTINUE|FAILED`,
 * `VOTE: APPROVE|CHANGE|REJECT` and `NEXT: @name|END`, for models that write the line instead of
 * calling the tool. Tolerant of bold/italics, spacing, case and a trailing summary; the last match wins.
 */
import type { TurnStatus, Vote } from './workflow-services.js';

const DECORATION = /[*_`>#]/g;

function lines(text: string): string[] {
  return text.split(/\r?\n/).map((line) => line.replace(DECORATION, ' ').trim());
}

function lastMatch(text: string, pattern: RegExp): RegExpExecArray | undefined {
  let found: RegExpExecArray | undefined;
  for (const line of lines(text)) {
    const match = pattern.exec(line);
    if (match) found = match;
  }
  return found;
}

const TAIL = /(?:\s*[-—–:.,;]\s*|\s+)?(.*)$/;

/** `STATUS: COMPLETED — summary` → status and summary. */
export function parseStatusLine(text: string): { status: TurnStatus; summary: string } | undefined {
  const match = lastMatch(text, new RegExp(`^\\s*status\\s*[:=]\\s*(completed|continue|failed)\\b${TAIL.source}`, 'i'));
  if (!match) return undefined;
  return { status: match[1]!.toUpperCase() as TurnStatus, summary: (match[2] ?? '').trim() };
}

/** `VOTE: APPROVE — reason` → vote and reason. */
export function parseVoteLine(text: string): { vote: Vote; reason: string } | undefined {
  const match = lastMatch(text, new RegExp(`^\\s*vote\\s*[:=]\\s*(approve|change|reject)\\b${TAIL.source}`, 'i'));
  if (!match) return undefined;
  return { vote: match[1]!.toUpperCase() as Vote, reason: (match[2] ?? '').trim() };
}

/** `NEXT: @worf — reason` or `NEXT: END` → agent (`END` for the end) and reason. */
export function parseNextLine(text: string): { agent: string; reason: string } | undefined {
  const match = lastMatch(text, new RegExp(`^\\s*next\\s*[:=]\\s*@?([\\p{L}\\p{N}_.-]+)${TAIL.source}`, 'iu'));
  if (!match) return undefined;
  const agent = match[1]!.replace(/[.]+$/, '');
  return { agent: agent.toUpperCase() === 'END' ? 'END' : agent, reason: (match[2] ?? '').trim() };
}
