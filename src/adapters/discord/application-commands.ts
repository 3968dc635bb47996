/**
 * The application commands `/call`, `/team`, `/goal` and `/tsuka` with typed options, their
 * registration (guild-scoped per configured guild, so they appear at once; global otherwise;
 * a `PUT` only when what Discord holds differs), and the text the command layer parses from
 * an invocation's options. `/tsuka` takes its subcommand as one string option (`help`,
 * `model qwen2.5-coder:7b`, `export`…) rather than Discord subcommands, so the command layer's
 * parser stays the one for every platform.
 * https://discord.com/developers/docs/interactions/application-commands#registering-a-command
 */
import { ApplicationCommandOptionType, Routes, type REST, type RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import type { SlashCommandName } from '../../commands/inbound-event.js';
import type { Logger } from '../../core/logger.js';

export const DISCORD_COMMAND_NAMES: SlashCommandName[] = ['call', 'team', 'goal', 'tsuka'];
export const CALL_MAX_ROUNDS = 10;

const { String: STRING, Integer: INTEGER } = ApplicationCommandOptionType;

export const DISCORD_COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = [
  {
    name: 'call',
    description: 'A debate between characters in a thread',
    options: [
      { type: STRING, name: 'participants', description: 'At least two characters, e.g. spock worf', required: true },
      { type: STRING, name: 'topic', description: 'What they discuss' },
      { type: INTEGER, name: 'rounds', description: 'Rounds of debate (default 2)', min_value: 1, max_value: CALL_MAX_ROUNDS },
    ],
  },
  {
    name: 'team',
    description: 'A team of characters works on a task (no team: list the teams)',
    options: [
      { type: STRING, name: 'team', description: 'The team' },
      { type: STRING, name: 'task', description: 'What the team should do' },
    ],
  },
  {
    name: 'goal',
    description: 'A planner picks characters and runs the plan',
    options: [{ type: STRING, name: 'objective', description: 'What to achieve', required: true }],
  },
  {
    name: 'tsuka',
    description: 'TSUKA settings and tools (help, status, model, effort, memory, runs, export, stop…)',
    options: [{ type: STRING, name: 'command', description: 'e.g. help · status · model qwen2.5-coder:7b · export · stop' }],
  },
];

/** An option value as an invocation carries it. */
export type OptionValue = string | number | boolean | undefined;

/** The command-layer text of an invocation (`spock worf "topic" rounds=3`). */
export function commandText(name: SlashCommandName, option: (optionName: string) => OptionValue): string {
  const text = (optionName: string): string => {
    const value = option(optionName);
    return value === undefined ? '' : String(value).trim();
  };
  switch (name) {
    case 'call': {
      const topic = text('topic');
      const rounds = text('rounds');
      return [text('participants'), topic ? `"${topic.replace(/"/g, "'")}"` : '', rounds ? `rounds=${rounds}` : ''].filter(Boolean).join(' ');
    }
    case 'team':
      return [text('team'), text('task')].filter(Boolean).join(' ');
    case 'goal':
      return text('objective');
    case 'tsuka':
      return text('command') || 'help';
  }
}

interface ComparableOption {
  type: unknown;
  name: unknown;
  description: unknown;
  required: boolean;
  min: unknown;
  max: unknown;
}

/** The parts of a command that matter to users, in a stable order, for comparing sets. */
function comparable(commands: unknown[]): string {
  const shaped = commands.map((raw) => {
    const command = (raw ?? {}) as { name?: unknown; description?: unknown; options?: unknown };
    const options: ComparableOption[] = (Array.isArray(command.options) ? command.options : []).map((rawOption: unknown) => {
      const option = (rawOption ?? {}) as Record<string, unknown>;
      return {
        type: option['type'],
        name: option['name'],
        description: option['description'],
        required: option['required'] === true,
        min: option['min_value'] ?? null,
        max: option['max_value'] ?? null,
      };
    });
    return { name: command.name, description: command.description, options };
  });
  return JSON.stringify(shaped.sort((a, b) => String(a.name).localeCompare(String(b.name))));
}

/** Registers the commands in each scope whose current set differs; returns the scopes written. */
export async function registerDiscordCommands(options: { rest: REST; applicationId: string; guildIds: string[]; logger: Logger }): Promise<string[]> {
  const { rest, applicationId, logger } = options;
  const scopes =
    options.guildIds.length > 0
      ? options.guildIds.map((guild) => ({ scope: guild, route: Routes.applicationGuildCommands(applicationId, guild) }))
      : [{ scope: 'global', route: Routes.applicationCommands(applicationId) }];
  const written: string[] = [];
  for (const { scope, route } of scopes) {
    try {
      const current = await rest.get(route);
      if (comparable(Array.isArray(current) ? current : []) === comparable(DISCORD_COMMANDS)) continue;
      await rest.put(route, { body: DISCORD_COMMANDS });
      written.push(scope);
      logger.info('Discord application commands registered', { scope, commands: DISCORD_COMMAND_NAMES });
    } catch (error) {
      // One guild the bot cannot reach must not keep the others (or the bot) from working.
      logger.error('Discord application commands could not be registered (is the bot invited with the applications.commands scope?)', { scope, error });
    }
  }
  return written;
}
