/**
 * Application commands, global and guild-scoped: `GET` the set, `PUT` to replace it whole
 * (every PUT recorded, new commands counted as creates), `POST` to create or update one.
 * https://discord.com/developers/docs/interactions/application-commands
 */
import { DiscordApiError, asRecord, stringField, type Route, type RouteContext } from './http-kit.js';
import { commandPayload } from './interaction-payloads.js';
import type { Recorder } from './records.js';
import type { EmulatorState, StoredCommand } from './state.js';

/** Names of chat-input commands: 1–32 lowercase letters, digits, `-` or `_`. */
const COMMAND_NAME_PATTERN = /^[-_\p{Ll}\p{Lo}\p{N}]{1,32}$/u;
const DISCORD_MAX_COMMAND_DESCRIPTION_LENGTH = 100;

/** Creates the command routes for both scopes. */
export function createCommandRoutes(state: EmulatorState, recorder: Recorder): Route[] {
  const scopeOf = (context: RouteContext): string => {
    if (context.params['applicationId'] !== state.applicationId) throw new DiscordApiError(403, 50001, 'Missing Access');
    const guildId = context.params['guildId'];
    if (guildId === undefined) return 'global';
    if (guildId !== state.guildId) throw new DiscordApiError(403, 50001, 'Missing Access');
    return guildId;
  };

  const upsert = (scope: string, previous: StoredCommand[], input: Record<string, unknown>): { command: StoredCommand; created: boolean } => {
    const type = typeof input['type'] === 'number' ? input['type'] : 1;
    const existing = previous.find((command) => command.name === input['name'] && command.type === type);
    return { command: commandPayload(state, existing?.id ?? state.nextId(), scope, input), created: existing === undefined };
  };

  const list = (context: RouteContext) => ({ status: 200, body: state.commands.get(scopeOf(context)) ?? [] });

  const put = (context: RouteContext) => {
    const scope = scopeOf(context);
    if (!Array.isArray(context.rawBody))
      throw new DiscordApiError(400, 50035, 'Invalid Form Body', {
        _errors: [{ code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' }],
      });
    const inputs = context.rawBody.map(asRecord);
    inputs.forEach(validateCommand);
    const previous = state.commands.get(scope) ?? [];
    const results = inputs.map((input) => upsert(scope, previous, input));
    const commands = results.map((result) => result.command);
    state.commands.set(scope, commands);
    recorder.commandPuts.push({ scope, commands: context.rawBody, created: results.filter((result) => result.created).length, at: Date.now() });
    recorder.changed();
    return { status: 200, body: commands };
  };

  const post = (context: RouteContext) => {
    const scope = scopeOf(context);
    validateCommand(context.body, 0);
    const previous = state.commands.get(scope) ?? [];
    const { command, created } = upsert(scope, previous, context.body);
    state.commands.set(scope, [...previous.filter((entry) => entry.id !== command.id), command]);
    recorder.changed();
    return { status: created ? 201 : 200, body: command };
  };

  const routes: Route[] = [];
  for (const pattern of ['/applications/:applicationId/commands', '/applications/:applicationId/guilds/:guildId/commands']) {
    routes.push(
      { method: 'GET', pattern, auth: 'bot', major: 'applicationId', handle: list },
      { method: 'PUT', pattern, auth: 'bot', major: 'applicationId', handle: put },
      { method: 'POST', pattern, auth: 'bot', major: 'applicationId', handle: post },
    );
  }
  return routes;
}

function validateCommand(input: Record<string, unknown>, index: number): void {
  const name = stringField(input, 'name') ?? '';
  const type = typeof input['type'] === 'number' ? input['type'] : 1;
  const fail = (field: string, code: string, message: string): DiscordApiError =>
    new DiscordApiError(400, 50035, 'Invalid Form Body', { [index]: { [field]: { _errors: [{ code, message }] } } });
  if (type === 1 && !COMMAND_NAME_PATTERN.test(name)) {
    throw fail('name', 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  }
  const description = stringField(input, 'description') ?? '';
  if (type === 1 && (description.length < 1 || description.length > DISCORD_MAX_COMMAND_DESCRIPTION_LENGTH)) {
    throw fail('description', 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${DISCORD_MAX_COMMAND_DESCRIPTION_LENGTH} in length.`);
  }
}
