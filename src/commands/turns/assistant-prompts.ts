/**
 * What a chat app's assistant surface shows around a conversation (Slack's DMs with the app,
 * issue 24): suggested prompts naming the characters when a person opens a thread, and the
 * thread's title from its first message. Platform-free: the adapter sends them its own way.
 */
import type { Roster } from '../../core/data/types.js';

export interface SuggestedPrompt {
  /** What the button says ("Ask Geordi"). */
  title: string;
  /** What is sent when it is clicked: the character's name first, so that it answers. */
  message: string;
}

/** Slack shows at most four. */
export const MAX_SUGGESTED_PROMPTS = 4;
/** Thread titles longer than this are cut (a list of threads shows one line each). */
export const THREAD_TITLE_MAX = 60;

/** One prompt per character, the default character first, then the roster's order: at most four. */
export function suggestedPrompts(roster: Roster, defaultCharacter?: string): SuggestedPrompt[] {
  const all = [...roster.characters.values()];
  const first = all.find((character) => character.name === defaultCharacter);
  const ordered = first ? [first, ...all.filter((character) => character !== first)] : all;
  return ordered.slice(0, MAX_SUGGESTED_PROMPTS).map((character) => ({ title: `Ask ${character.aiName}`, message: `@${character.name} what can you do?` }));
}

/** A thread's title from its first message: one line, Markdown marks and mentions dropped, at most {@link THREAD_TITLE_MAX} characters. */
export function threadTitle(text: string): string {
  const line = text
    .replace(/<[@#!][^>]*>/g, '')
    .replace(/[*_~`>#]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (line.length === 0) return 'New conversation';
  return line.length <= THREAD_TITLE_MAX ? line : `${line.slice(0, THREAD_TITLE_MAX - 1).trimEnd()}…`;
}
