/**
 * What a Slack reply stream needs from the surface around it (`SlackMessaging`), which workspaces
 * refused the streaming methods, and the shapes of a streaming call's content. Shared by the
 * surface and `reply-stream.ts`.
 */
import type { AnyChunk, WebClient } from '@slack/web-api';
import type { Button, Identity, StreamOptions } from '../../commands/chat-surface.js';
import type { Logger } from '../../core/logger.js';
import type { CallPriority } from '../shared/call-budget.js';
import type { SlackCaller } from './call-budget.js';

/** Errors by which a workspace says it does not offer the streaming methods to this app. */
export const REFUSALS = new Set([
  'not_allowed',
  'unknown_method',
  'missing_scope',
  'not_allowed_token_type',
  'feature_not_enabled',
  'method_deprecated',
  'not_supported',
  'team_not_allowed',
]);

/** Said at the top of the message that carries on a reply whose stream Slack stopped taking. */
export const STREAM_GAVE_UP_NOTE = '(Slack stopped taking updates to the message above; the reply continues here.)';

export interface StreamingSupport {
  offered(team: string): boolean;
  refuse(team: string, reason: string): void;
}

/**
 * Which workspaces refused a capability (the streaming methods, task chunks): remembered for the
 * life of the process, the first refusal of each workspace logged once with `warning`.
 */
export function createRefusalMemory(logger: Logger, warning: string): StreamingSupport {
  const refused = new Map<string, string>();
  return {
    offered: (team) => !refused.has(team),
    refuse(team, reason) {
      if (refused.has(team)) return;
      refused.set(team, reason);
      logger.warn(warning, { team, reason });
    },
  };
}

/** Which workspaces refused the streaming methods. */
export function createStreamingSupport(logger: Logger): StreamingSupport {
  return createRefusalMemory(logger, "Slack's streaming methods were refused: replies in this workspace use a placeholder and chat.update");
}

/** Which workspaces take task cards (task_update chunks): `task-chunks.ts`. */
export type ChunkSupport = StreamingSupport;

/** What the stream needs from the Slack surface around it. */
export interface SlackMessaging {
  client: WebClient;
  caller: SlackCaller;
  logger: Logger;
  streaming: StreamingSupport;
  /** Which workspaces take task cards (task_update chunks). */
  chunks: ChunkSupport;
  postMessage(
    channel: string,
    threadTs: string | undefined,
    text: string,
    identity: Identity | undefined,
    buttons: Button[] | undefined,
    priority?: CallPriority,
    coalesceKey?: string,
    direct?: boolean,
  ): Promise<string>;
  update(
    channel: string,
    ts: string,
    text: string,
    identity: Identity | undefined,
    buttons: Button[] | undefined,
    priority: CallPriority,
    coalesceKey?: string,
    direct?: boolean,
  ): Promise<void>;
  setStatus(channel: string, threadTs: string, text: string, priority: CallPriority, coalesceKey?: string): Promise<void>;
  customize: { available(): boolean; missing(): void };
}

export interface SlackReplyStreamOptions extends StreamOptions {
  team: string;
  channel: string;
  threadTs: string;
  recipientUser?: string;
  useStreaming: boolean;
}

/** What a streaming call carries: the new text, or chunks (text and task cards) with the display mode on the first call. */
export type StreamContent = { markdown_text: string } | { chunks: AnyChunk[]; task_display_mode?: string };

export const errorCode = (error: unknown): string | undefined => (error as { data?: { error?: string } }).data?.error;

/** `prefix` (the name in bold when the bot posts as itself) before the content's text, after a plan's title. */
export function withPrefix(fields: StreamContent, prefix: string): StreamContent {
  if (!prefix) return fields;
  if ('markdown_text' in fields) return { markdown_text: prefix + fields.markdown_text };
  const [first, ...rest] = fields.chunks;
  const head = first?.type === 'plan_update' ? [first] : [];
  return { ...fields, chunks: [...head, { type: 'markdown_text', text: prefix }, ...(head.length > 0 ? rest : fields.chunks)] };
}
