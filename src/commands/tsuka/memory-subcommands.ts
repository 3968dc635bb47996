/**
 * `/tsuka memory [query]`, `/tsuka memory share <id>`, `/tsuka forget|pin|unpin <id>`: on the memory
 * of the channel (or DM) where the command is typed plus the shared facts. Changing a fact is for its
 * author or an admin; sharing is for admins; a fact of another channel is not found from here.
 */
import type { MemoryFact } from '../../core/memory/memory-fact.js';
import { isSharedScope } from '../../core/scopes/conversation-scope.js';
import { type MemoryOutcome, scopedMemory } from '../../core/scopes/memory-access.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { memoryAccessFor } from '../runs/memory-access-for.js';

export const MEMORY_SUBCOMMANDS = ['memory', 'forget', 'pin', 'unpin'] as const;
const LIST_LIMIT = 15;
const RECALL_LIMIT = 10;

const line = (fact: MemoryFact): string =>
  `\`${fact.id}\` ${fact.pinned ? '📌 ' : ''}[${fact.kind}${isSharedScope(fact.scope) ? ', shared' : ''}] ${fact.summary}`;

const refusal = (outcome: Extract<MemoryOutcome, { ok: false }>, id: string): string =>
  outcome.reason === 'forbidden' ? outcome.message : `No fact with id ${id} in this channel's memory or the shared memory.`;

/** Answers one memory subcommand; `reply` goes to the person who typed it alone. */
export async function handleMemorySubcommand(
  subcommand: (typeof MEMORY_SUBCOMMANDS)[number],
  args: readonly string[],
  event: Pick<SlashCommandEvent, 'channel' | 'user' | 'platform'>,
  deps: Pick<CommandDependencies, 'memory' | 'settings' | 'logger' | 'audit'>,
  reply: (text: string) => Promise<void>,
): Promise<void> {
  const memory = scopedMemory(deps.memory, memoryAccessFor(deps.settings, event));
  const where = { platform: event.platform, channelId: event.channel };
  if (subcommand === 'memory' && args[0]?.toLowerCase() === 'share') {
    const id = args[1];
    if (!id) return reply('Usage: /tsuka memory share <id>');
    const outcome = await memory.share(id);
    if (!outcome.ok) return reply(refusal(outcome, id));
    deps.logger.info('memory fact shared', { from: id, to: outcome.fact.id, by: event.user });
    await deps.audit.append({ type: 'memory-share', actor: event.user, where, factId: id, scope: outcome.fact.scope });
    return reply(outcome.fact.id === id ? `${id} is already shared.` : `Shared: every channel now sees it as ${outcome.fact.id}.`);
  }
  if (subcommand === 'memory') {
    const query = args.join(' ');
    const facts = query ? await memory.recall(query, RECALL_LIMIT) : (await memory.list()).slice(0, LIST_LIMIT);
    if (facts.length === 0) return reply(query ? `No memory matches "${query}".` : 'Memory is empty.');
    return reply(facts.map(line).join('\n'));
  }
  const id = args[0];
  if (!id) return reply(`Usage: /tsuka ${subcommand} <id>`);
  const outcome = subcommand === 'forget' ? await memory.forget(id) : subcommand === 'pin' ? await memory.pin(id) : await memory.unpin(id);
  if (!outcome.ok) return reply(refusal(outcome, id));
  if (subcommand === 'forget') deps.logger.info('memory fact forgotten', { id, by: event.user });
  const type = subcommand === 'forget' ? 'memory-forget' : subcommand === 'pin' ? 'memory-pin' : 'memory-unpin';
  await deps.audit.append({ type, actor: event.user, where, factId: id, ...('fact' in outcome && outcome.fact ? { scope: outcome.fact.scope } : {}) });
  return reply(`${subcommand === 'forget' ? 'Forgot' : subcommand === 'pin' ? 'Pinned' : 'Unpinned'} ${id}.`);
}
