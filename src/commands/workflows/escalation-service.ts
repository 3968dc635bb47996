/**
 * The escalation service behind `request_goal|team|call` in plain conversations: after the tool's
 * approval (it is RESTRICTED), starts the requested run in its own root message and thread through
 * the same handlers as the slash commands. Invalid requests go back to the agent, not to chat.
 */
import type { EscalationRequest, EscalationService } from '../../core/workflows/workflow-services.js';
import type { ChatSurface, ChannelRef, UserRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { WorkflowHandlers } from '../workflow-handlers.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { parseCallCommand } from './parse-call.js';
import { parseTeamCommand } from './parse-team.js';

export interface EscalationServiceOptions {
  deps: Pick<CommandDependencies, 'roster' | 'logger'>;
  handlers: WorkflowHandlers;
  surface: ChatSurface;
  channel: ChannelRef;
  /** Whoever started the conversation: the new run is theirs. */
  user: UserRef;
  userName?: string;
}

const quote = (text: string): string => `"${text.replace(/"/g, "'")}"`;

function commandText(request: EscalationRequest): string {
  switch (request.kind) {
    case 'call':
      return `${request.participants.map((name) => `@${name.replace(/^@/, '')}`).join(' ')} ${quote(request.topic)}`;
    case 'team':
      return `${request.team} ${quote(request.task)}`;
    case 'goal':
      return request.objective;
  }
}

export function createEscalationService(options: EscalationServiceOptions): EscalationService {
  let counter = 0;
  return {
    async start(request) {
      const handler = options.handlers[request.kind];
      if (!handler) return `/${request.kind} is not available in this version; do the work here instead.`;
      const text = commandText(request);
      const parsed =
        request.kind === 'call'
          ? parseCallCommand(options.deps.roster, text)
          : request.kind === 'team'
            ? parseTeamCommand(options.deps.roster, text)
            : { ok: true as const };
      if (!parsed.ok) return `Not started: ${parsed.message}`;
      const event: SlashCommandEvent = {
        type: 'slash-command',
        id: `escalation-${Date.now().toString(36)}-${++counter}`,
        platform: options.surface.platform,
        channel: options.channel,
        user: options.user,
        ...(options.userName ? { userName: options.userName } : {}),
        fromBot: false,
        command: request.kind,
        text,
        reply: (message) => options.surface.postEphemeral({ channel: options.channel, user: options.user, text: message }),
      };
      // The new run lives on in its own thread; this turn does not wait for it.
      void handler(event, options.surface).catch((error: unknown) => options.deps.logger.error('escalated run failed', { kind: request.kind, error }));
      return `Started /${request.kind} ${text} in a new thread of this channel.`;
    },
  };
}
