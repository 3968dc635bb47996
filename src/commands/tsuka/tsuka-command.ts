/**
 * `/tsuka <subcommand>`: help, characters, teams, status, queue, model, effort, memory, forget, pin,
 * unpin, decisions, runs, export, stop, default, reset. Answers go only to the user who typed it.
 */
import type { SlashCommandEvent } from '../inbound-event.js';
import type { ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { Conversations } from '../turns/conversations.js';
import type { ActiveRuns } from '../runs/active-runs.js';
import { findCharacter } from '../../core/data/character-lookup.js';
import { characterCatalogue, teamCatalogue } from '../../core/data/roster-summary.js';
import { readEffortPin, writeChannelDefault, writeEffortPin } from '../channels/settings-store.js';
import { formatToolListing } from './tools-listing.js';
import { handleBenchmarkSubcommand } from './benchmark-subcommand.js';
import { handlePolicySubcommand } from '../policy/policy-subcommand.js';
import { handleMemorySubcommand, type MEMORY_SUBCOMMANDS } from './memory-subcommands.js';
import { handleRunSubcommand, isRunSubcommand } from './run-subcommands.js';
import { handleScheduleSubcommand, isScheduleSubcommand } from './schedule-subcommands.js';
import { handleDecisionsSubcommand } from './decisions-subcommand.js';
import { handleQueueSubcommand } from './queue-subcommand.js';
import { TSUKA_HELP } from './tsuka-help.js';

export { TSUKA_HELP } from './tsuka-help.js';

const EFFORTS = ['none', 'low', 'medium', 'xhigh', 'auto'];

export interface TsukaCommandContext {
  deps: CommandDependencies;
  conversations: Conversations;
  activeRuns: ActiveRuns;
  startedAt: number;
}

export async function handleTsukaCommand(event: SlashCommandEvent, surface: ChatSurface, context: TsukaCommandContext): Promise<void> {
  const { deps } = context;
  const [subcommand = 'help', ...args] = event.text.trim().split(/\s+/).filter(Boolean);
  const argument = args.join(' ');
  const isAdmin = deps.settings.admins.includes(event.user);
  const reply = (text: string) => event.reply(deps.maskSecrets(text));

  const name = subcommand.toLowerCase();
  if (isRunSubcommand(name)) return handleRunSubcommand(name, args, event, surface, context);
  if (isScheduleSubcommand(name)) return handleScheduleSubcommand(name, argument, event, surface, deps);
  switch (name) {
    case 'help':
      return reply(TSUKA_HELP);
    case 'characters':
      return reply(`**Characters**\n${characterCatalogue(deps.roster)}`);
    case 'teams':
      return reply(`**Teams**\n${teamCatalogue(deps.roster)}`);
    case 'status': {
      const model = deps.models.current();
      // The running-runs index (every replica's runs on Redis), not a listing of every run.
      const running = await deps.runs.runningOwners();
      const replicas = new Set(running.map((entry) => entry.owner).filter(Boolean));
      const shared = deps.coordination?.shared === true;
      return reply(
        [
          `Model: ${model ? `${model.model.modelId} on ${model.providerName} (tier ${model.tier}${model.model.contextWindow ? `, context ${model.model.contextWindow}` : ''})` : `none — ${deps.models.unavailableMessage().split('\n')[0]}`}`,
          `Effort pin: ${(await readEffortPin(deps.store)) ?? 'auto'}`,
          `Active threads: ${context.conversations.activeThreads()} · queued messages: ${context.conversations.queuedMessages()} · runs in progress: ${context.activeRuns.list().length}${shared ? ` here, ${running.length} on ${replicas.size} replica${replicas.size === 1 ? '' : 's'} (replica ${deps.coordination?.replicaId})` : ` (${running.length} recorded as running)`}`,
          `Up for ${Math.round((Date.now() - context.startedAt) / 60_000)} min`,
        ].join('\n'),
      );
    }
    case 'queue':
      return handleQueueSubcommand(event, surface, deps);
    case 'model': {
      if (!argument) {
        const available = await deps.models.available();
        const current = deps.models.current();
        return reply(`Current model: ${current?.model.modelId ?? 'none'}\nAvailable: ${available.join(', ') || 'unknown'}`);
      }
      if (!isAdmin) return reply('Only an admin can change the model.');
      await deps.models.select(argument);
      return reply(`Model set to ${argument}.`);
    }
    case 'effort': {
      if (!argument) return reply(`Effort pin: ${(await readEffortPin(deps.store)) ?? 'auto'} (one of ${EFFORTS.join(', ')})`);
      if (!EFFORTS.includes(argument)) return reply(`Unknown effort "${argument}": use one of ${EFFORTS.join(', ')}.`);
      if (!isAdmin && deps.settings.admins.length > 0) return reply('Only an admin can pin the reasoning effort.');
      await writeEffortPin(deps.store, argument);
      return reply(argument === 'auto' ? 'Effort pin removed: each character uses its own.' : `Reasoning effort pinned to ${argument} for every character.`);
    }
    case 'memory':
    case 'forget':
    case 'pin':
    case 'unpin':
      return handleMemorySubcommand(subcommand.toLowerCase() as (typeof MEMORY_SUBCOMMANDS)[number], args, event, deps, reply);
    case 'decisions':
      return handleDecisionsSubcommand(event, deps, reply);
    case 'roles':
      return reply(['**Roles**', ...[...deps.roster.roles.values()].map((role) => `\`${role.name}\` ${role.displayName} — ${role.description}`)].join('\n'));
    case 'default': {
      if (!argument) return reply(`Usage: /tsuka default <character> — one of ${[...deps.roster.characters.keys()].join(', ')}`);
      const character = findCharacter(deps.roster, argument);
      if (!character) return reply(`Unknown character "${argument}". Try /tsuka characters.`);
      await writeChannelDefault(deps.store, event.channel, character.name);
      return reply(`${character.aiName} now answers mentions without a name in this channel.`);
    }
    case 'reset': {
      await writeChannelDefault(deps.store, event.channel, undefined);
      return reply('This channel is back to the configured default character. (To reset a conversation, write `reset` in its thread.)');
    }
    case 'tools': {
      const catalog = deps.createdTools;
      if (args[0]?.toLowerCase() === 'remove') {
        if (!args[1]) return reply('Usage: /tsuka tools remove <name>');
        if (!isAdmin) return reply('Only an admin can remove a created tool.');
        return reply((await catalog?.remove(args[1])) ? `Removed the tool ${args[1]}.` : `No created tool ${args[1]}.`);
      }
      const bySource = deps.toolGroups
        ? `**Tools by source**\n${formatToolListing(deps.toolGroups())}`
        : `**Tools**\n${deps.tools
            .names()
            .map((name) => `\`${name}\``)
            .join(' ')}`;
      const created = catalog?.list() ?? [];
      const made =
        created.length === 0
          ? 'No tools were made with create_tool in this workspace.'
          : [
              '**Tools made with create_tool** (DANGEROUS: every call asks)',
              ...created.map((tool) => `\`${tool.name}\` — ${tool.description} · \`${tool.command}\` · by ${tool.createdBy}`),
            ].join('\n');
      return reply(`${bySource}\n${made}`);
    }
    case 'benchmark':
      return handleBenchmarkSubcommand(event, deps);
    case 'policy':
      return handlePolicySubcommand(args, event, surface, deps, reply);
    default:
      return reply(`Unknown subcommand "${subcommand}".\n${TSUKA_HELP}`);
  }
}
