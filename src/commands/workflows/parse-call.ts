/**
 * `/call @spock @worf "Should we cache sessions in Redis?"` or `/call spock worf topic words`
 * (design §2.3): participants first (with or without `@`, any case, file name or aiName), then the
 * topic quoted or not; `rounds=N` anywhere, spaces around `=` allowed. Names are split on whitespace only (design §6.1).
 */
import type { Character, Roster } from '../../core/data/types.js';
import { findCharacter, suggestCharacters } from '../../core/data/character-lookup.js';
import { DEFAULT_CALL_ROUNDS, MAX_CALL_ROUNDS } from '../../core/workflows/call.js';
import { tokenizeCommand, type CommandToken } from './command-tokens.js';

export type ParsedCall = { ok: true; participants: Character[]; topic: string; rounds: number } | { ok: false; message: string };

const USAGE = 'Usage: `/call @spock @worf "Should we cache sessions in Redis?"` (at least two characters, then the topic; `rounds=N` optional).';
const ROUNDS = /^rounds\s*=\s*(\d+)$/i;

function didYouMean(roster: Roster, name: string): string {
  const suggestions = suggestCharacters(roster, name)
    .slice(0, 3)
    .map((character) => `@${character.aiName}`);
  return suggestions.length > 0
    ? ` Did you mean ${suggestions.join(' or ')}?`
    : ` Characters: ${[...roster.characters.values()].map((character) => character.name).join(', ')}.`;
}

// `rounds=3`, `rounds = 3`, `rounds =3` and `rounds= 3` are one to three unquoted words; they are taken out.
function takeRounds(all: readonly CommandToken[]): { tokens: CommandToken[]; rounds?: number } {
  const tokens: CommandToken[] = [];
  let rounds: number | undefined;
  for (let index = 0; index < all.length; index++) {
    let width = 0;
    for (let candidate = 1; candidate <= 3 && index + candidate <= all.length; candidate++) {
      const words = all.slice(index, index + candidate);
      if (words.some((word) => word.quoted)) break;
      const match = ROUNDS.exec(words.map((word) => word.text).join(''));
      if (match) {
        rounds = Number(match[1]);
        width = candidate;
        break;
      }
    }
    if (width === 0) tokens.push(all[index]!);
    else index += width - 1;
  }
  return { tokens, ...(rounds !== undefined ? { rounds } : {}) };
}

export function parseCallCommand(roster: Roster, text: string): ParsedCall {
  const taken = takeRounds(tokenizeCommand(text));
  const { tokens } = taken;
  const rounds = taken.rounds ?? DEFAULT_CALL_ROUNDS;
  if (rounds < 1 || rounds > MAX_CALL_ROUNDS) return { ok: false, message: `rounds must be between 1 and ${MAX_CALL_ROUNDS}.` };
  const participants: Character[] = [];
  let index = 0;
  for (; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token.quoted) break;
    const name = token.text.replace(/[,:;]+$/, '');
    const character = findCharacter(roster, name);
    if (character) {
      if (!participants.includes(character)) participants.push(character);
      continue;
    }
    if (name.startsWith('@')) return { ok: false, message: `Unknown character "${name}".${didYouMean(roster, name)}` };
    break;
  }
  const topic = tokens
    .slice(index)
    .map((token) => token.text)
    .join(' ')
    .trim();
  if (participants.length < 2) {
    return {
      ok: false,
      message: `A call needs at least two participants${participants.length === 1 ? ` (only @${participants[0]!.aiName} was recognised)` : ''}. ${USAGE}`,
    };
  }
  if (topic === '') return { ok: false, message: `What should they discuss? ${USAGE}` };
  return { ok: true, participants, topic, rounds };
}
