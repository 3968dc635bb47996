/**
 * One bot-owned webhook per text channel, through which characters post under their own name
 * and avatar. An existing TSUKA webhook of this application is reused (Discord allows 15 per
 * channel, so one is never created per start); otherwise one is created. Without Manage
 * Webhooks the channel is remembered as "fallback" for a while and the bot posts itself.
 * https://discord.com/developers/docs/resources/webhook
 */
import { Routes, type REST } from 'discord.js';
import type { Logger } from '../../core/logger.js';

export const TSUKA_WEBHOOK_NAME = 'TSUKA';
/** How long a channel without Manage Webhooks stays on the fallback before asking again. */
export const WEBHOOK_FALLBACK_RETRY_MS = 10 * 60_000;

/** A webhook this application owns. */
export interface OwnedWebhook {
  id: string;
  token: string;
}

export interface DiscordWebhooks {
  /** The channel's webhook, or undefined when the bot may not manage webhooks there. */
  forChannel(parentId: string): Promise<OwnedWebhook | undefined>;
  /** The token of a known webhook, looked up through its channel after a restart. */
  byId(webhookId: string, parentId: string): Promise<OwnedWebhook | undefined>;
  /** Forgets a webhook someone deleted. */
  forget(webhookId: string): void;
}

/** Discord's answers for a missing permission: 403 with 50013 (Missing Permissions) or 50001 (Missing Access). */
export function isMissingPermission(error: unknown): boolean {
  const { status, code } = error as { status?: unknown; code?: unknown };
  return status === 403 || code === 50013 || code === 50001;
}

export function discordErrorCode(error: unknown): unknown {
  return (error as { code?: unknown } | undefined)?.code;
}

function ownedWebhook(value: unknown, applicationId: string): OwnedWebhook | undefined {
  const hook = value as { id?: unknown; token?: unknown; application_id?: unknown; name?: unknown } | null;
  if (!hook || typeof hook.id !== 'string' || typeof hook.token !== 'string') return undefined;
  if (hook.application_id !== applicationId || hook.name !== TSUKA_WEBHOOK_NAME) return undefined;
  return { id: hook.id, token: hook.token };
}

export function createDiscordWebhooks(options: { rest: () => REST; applicationId: () => string; logger: Logger; now?: () => number }): DiscordWebhooks {
  const now = options.now ?? Date.now;
  const byChannel = new Map<string, Promise<OwnedWebhook | undefined>>();
  const fallbackSince = new Map<string, number>();
  const known = new Map<string, OwnedWebhook>();
  const channelOfWebhook = new Map<string, string>();
  let warned = false;

  async function resolve(parentId: string): Promise<OwnedWebhook | undefined> {
    const rest = options.rest();
    try {
      const existing = await rest.get(Routes.channelWebhooks(parentId));
      const found = (Array.isArray(existing) ? existing : []).map((hook) => ownedWebhook(hook, options.applicationId())).find(Boolean);
      const hook = found ?? ownedWebhook(await rest.post(Routes.channelWebhooks(parentId), { body: { name: TSUKA_WEBHOOK_NAME } }), options.applicationId());
      if (!hook) throw new Error(`Discord returned no usable webhook for channel ${parentId}`);
      known.set(hook.id, hook);
      channelOfWebhook.set(hook.id, parentId);
      return hook;
    } catch (error) {
      if (!isMissingPermission(error)) throw error;
      fallbackSince.set(parentId, now());
      if (!warned) {
        warned = true;
        options.logger.warn(
          'Discord: Manage Webhooks is missing; characters post as the bot with their name in bold (grant Manage Webhooks to post under each name)',
          { channel: parentId },
        );
      }
      return undefined;
    }
  }

  const forChannel = (parentId: string): Promise<OwnedWebhook | undefined> => {
    const since = fallbackSince.get(parentId);
    if (since !== undefined && now() - since > WEBHOOK_FALLBACK_RETRY_MS) {
      fallbackSince.delete(parentId);
      byChannel.delete(parentId);
    }
    let pending = byChannel.get(parentId);
    if (!pending) {
      pending = resolve(parentId);
      // A transient failure must not stick: the next post asks again.
      pending.catch(() => byChannel.delete(parentId));
      byChannel.set(parentId, pending);
    }
    return pending;
  };

  return {
    forChannel,
    async byId(webhookId, parentId) {
      const cached = known.get(webhookId);
      if (cached) return cached;
      const hook = await forChannel(parentId);
      return hook?.id === webhookId ? hook : known.get(webhookId);
    },
    forget(webhookId) {
      known.delete(webhookId);
      const channel = channelOfWebhook.get(webhookId);
      if (channel !== undefined) byChannel.delete(channel);
      channelOfWebhook.delete(webhookId);
    },
  };
}
