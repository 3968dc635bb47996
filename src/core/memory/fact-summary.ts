/** Summaries of facts: one line of at most 72 characters, cut at a word boundary. */
import { MEMORY_SUMMARY_MAX_CHARS } from './memory-fact.js';

/** `text` on one line, shortened at a word to `maxChars` with an ellipsis when it is longer. */
export function shortenToSummary(text: string, maxChars = MEMORY_SUMMARY_MAX_CHARS): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= maxChars) return line;
  const room = line.slice(0, maxChars - 1);
  const lastSpace = room.lastIndexOf(' ');
  const cut = lastSpace >= maxChars / 2 ? room.slice(0, lastSpace) : room;
  return `${cut.replace(/[\s,;:.-]+$/, '')}…`;
}

/** The summary for `content`: its first sentence or line when that fits, else the shortened start. */
export function deriveSummary(content: string): string {
  const firstLine = content.trim().split('\n')[0] ?? '';
  const firstSentence = /^(.+?[.!?])(\s|$)/.exec(firstLine)?.[1] ?? firstLine;
  return shortenToSummary(firstSentence.length >= 12 ? firstSentence : content);
}
