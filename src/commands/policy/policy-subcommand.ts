/**
 * `/tsuka policy reload` (admins: reads the policy file again; one that does not validate leaves
 * the one in force) and `/tsuka policy explain <command>` (the rule the command would meet in this
 * channel and who may decide).
 */
import { explainCall } from '../../core/policy/explain.js';
import type { ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { SlashCommandEvent } from '../inbound-event.js';

export async function handlePolicySubcommand(
  args: string[],
  event: SlashCommandEvent,
  _surface: ChatSurface,
  deps: CommandDependencies,
  reply: (text: string) => Promise<void>,
): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'reload') {
    if (!deps.settings.admins.includes(event.user)) return reply('Only an admin (`TSUKA_ADMINS`) can reload the approval policy.');
    if (!deps.policy) return reply('No approval policy is configured (`TSUKA_POLICY_FILE`, or `policy.json` beside mcp.json).');
    const said = deps.policy.reload();
    deps.logger.info('approval policy reload asked', { by: event.user, said });
    return reply(said);
  }
  if (action === 'explain' && rest.length > 0) {
    const policy = deps.policy?.current();
    if (!policy) return reply("No approval policy is configured: each channel's `dangerousApproval` rule decides.");
    return reply(explainCall(policy, { channel: event.channel, toolName: 'execute_command', command: rest.join(' ') }));
  }
  return reply('Usage: `/tsuka policy explain <command>` · `/tsuka policy reload` (admins)');
}
