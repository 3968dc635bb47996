/**
 * `/tsuka decisions`: the decisions of the channel it is typed in (adopted /call verdicts and any
 * other `decision` fact saved there), newest first, with their ids — the ids answers cite.
 */
import { scopedMemory } from '../../core/scopes/memory-access.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { memoryAccessFor } from '../runs/memory-access-for.js';

const LIST_LIMIT = 20;
const RUN_TAG = /^run-/;

export async function handleDecisionsSubcommand(
  event: Pick<SlashCommandEvent, 'channel' | 'user'>,
  deps: Pick<CommandDependencies, 'memory' | 'settings'>,
  reply: (text: string) => Promise<void>,
): Promise<void> {
  const access = memoryAccessFor(deps.settings, event);
  // The channel's own decisions: shared facts are every channel's, not this one's.
  const decisions = (await scopedMemory(deps.memory, access).list()).filter((fact) => fact.kind === 'decision' && fact.scope === access.scope);
  if (decisions.length === 0) return reply('No decisions in this channel yet. A /call ends with a verdict card: Adopt records its decision here.');
  const lines = decisions.slice(0, LIST_LIMIT).map((fact) => {
    const run = fact.tags.find((tag) => RUN_TAG.test(tag));
    return `\`${fact.id}\` ${new Date(fact.createdAt).toISOString().slice(0, 10)} — ${fact.summary.replace(/^Decision:\s*/, '')}${run ? ` · run \`${run}\`` : ''}`;
  });
  const more = decisions.length > LIST_LIMIT ? `\n… and ${decisions.length - LIST_LIMIT} older (\`/tsuka memory decision\` searches them).` : '';
  return reply(`**Decisions in this channel**\n${lines.join('\n')}${more}`);
}
