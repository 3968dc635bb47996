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
/** A character's own webhook is named `TSUKA:<file name>` (the post's `username` is its display name). */
export const CHARACTER_WEBHOOK_PREFIX = 'TSUKA:';
/** Discord's webhooks per channel, and its error code when a channel has them all. */
export const DISCORD_MAX_WEBHOOKS_PER_CHANNEL = 15;
export const MAX_WEBHOOKS_REACHED = 30007;

/** A character's picture as bytes, to create its webhook with (undefined: no picture). */
export type WebhookPictures = (character: string) => Promise<{ bytes: Buffer; contentType: string } | undefined>;

/** A webhook this application owns. */
export interface OwnedWebhook {
  id: string;
  token: string;
}

export interface DiscordWebhooks {
  /** The channel's webhook, or undefined when the bot may not manage webhooks there. */
  forChannel(parentId: string): Promise<OwnedWebhook | undefined>;
  /**
   * The character's own webhook in the channel (created with its picture), or undefined where it
   * cannot have one (no pictures, no permission, the channel's webhooks all taken): then the shared one.
   */
  forCharacter(parentId: string, character: string): Promise<OwnedWebhook | undefined>;
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

function ownedWebhook(value: unknown, applicationId: string, name: string | undefined = TSUKA_WEBHOOK_NAME): OwnedWebhook | undefined {
  const hook = value as { id?: unknown; token?: unknown; application_id?: unknown; name?: unknown } | null;
  if (!hook || typeof hook.id !== 'string' || typeof hook.token !== 'string' || hook.application_id !== applicationId) return undefined;
  // Without a name: any webhook of ours (the shared one or a character's).
  const named = name === undefined ? hook.name === TSUKA_WEBHOOK_NAME || String(hook.name).startsWith(CHARACTER_WEBHOOK_PREFIX) : hook.name === name;
  return named ? { id: hook.id, token: hook.token } : undefined;
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function createDiscordWebhooks(options: {
  rest: () => REST;
  applicationId: () => string;
  logger: Logger;
  now?: () => number;
  pictures?: WebhookPictures;
}): DiscordWebhooks {
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
      const found = listOf(existing)
        .map((hook) => ownedWebhook(hook, options.applicationId()))
        .find(Boolean);
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

  const characters = createCharacterHooks({
    ...options,
    forChannel,
    remember: (hook, parentId) => {
      known.set(hook.id, hook);
      channelOfWebhook.set(hook.id, parentId);
    },
  });

  return {
    forChannel,
    forCharacter: characters.forCharacter,
    async byId(webhookId, parentId) {
      const cached = known.get(webhookId);
      if (cached) return cached;
      const hook = await forChannel(parentId);
      if (!hook || hook.id === webhookId) return hook ?? known.get(webhookId);
      // After a restart: a character's webhook, found among the channel's.
      const found = listOf(await options.rest().get(Routes.channelWebhooks(parentId)))
        .map((entry) => ownedWebhook(entry, options.applicationId(), undefined))
        .find((entry) => entry?.id === webhookId);
      if (found) known.set(found.id, found);
      return found;
    },
    forget(webhookId) {
      known.delete(webhookId);
      const channel = channelOfWebhook.get(webhookId);
      if (channel !== undefined) byChannel.delete(channel);
      characters.forget(webhookId);
      channelOfWebhook.delete(webhookId);
    },
  };
}

/** The characters' own webhooks, one per character and channel, created with the character's picture. */
function createCharacterHooks(options: {
  rest: () => REST;
  applicationId: () => string;
  logger: Logger;
  now?: () => number;
  pictures?: WebhookPictures;
  forChannel: (parentId: string) => Promise<OwnedWebhook | undefined>;
  remember: (hook: OwnedWebhook, parentId: string) => void;
}) {
  const now = options.now ?? Date.now;
  const hooks = new Map<string, Promise<OwnedWebhook | undefined>>();
  /** Channels whose webhooks are all taken, since when (asked again after WEBHOOK_FALLBACK_RETRY_MS). */
  const fullSince = new Map<string, number>();
  /** When a failed character may be asked for again. */
  const retryAt = new Map<string, number>();
  const keyOfWebhook = new Map<string, string>();
  const key = (parentId: string, character: string) => `${parentId}/${character}`;

  async function resolve(parentId: string, character: string, pictures: WebhookPictures): Promise<OwnedWebhook | undefined> {
    const rest = options.rest();
    const name = `${CHARACTER_WEBHOOK_PREFIX}${character}`;
    try {
      const found = listOf(await rest.get(Routes.channelWebhooks(parentId)))
        .map((entry) => ownedWebhook(entry, options.applicationId(), name))
        .find(Boolean);
      const picture = found ? undefined : await pictures(character);
      if (!found && !picture) return undefined;
      const hook =
        found ??
        ownedWebhook(
          await rest.post(Routes.channelWebhooks(parentId), {
            body: { name, avatar: `data:${picture!.contentType};base64,${picture!.bytes.toString('base64')}` },
          }),
          options.applicationId(),
          name,
        );
      if (hook) {
        options.remember(hook, parentId);
        keyOfWebhook.set(hook.id, key(parentId, character));
      }
      return hook;
    } catch (error) {
      if (discordErrorCode(error) === MAX_WEBHOOKS_REACHED) {
        if (!fullSince.has(parentId))
          options.logger.info(
            `Discord: the channel's ${DISCORD_MAX_WEBHOOKS_PER_CHANNEL} webhooks are taken; characters without a picture URL post under their name only there`,
            {
              channel: parentId,
            },
          );
        fullSince.set(parentId, now());
      } else if (!isMissingPermission(error)) {
        options.logger.warn("Discord: a character's webhook could not be made; it posts through the shared one", { channel: parentId, character, error });
      }
      // Asked again after a while (the next post after the retry time).
      retryAt.set(key(parentId, character), now() + WEBHOOK_FALLBACK_RETRY_MS);
      return undefined;
    }
  }

  return {
    async forCharacter(parentId: string, character: string): Promise<OwnedWebhook | undefined> {
      const pictures = options.pictures;
      if (!pictures) return undefined;
      // The shared webhook first: it keeps a place in a channel that fills up.
      if (!(await options.forChannel(parentId))) return undefined;
      const since = fullSince.get(parentId);
      if (since !== undefined && now() - since <= WEBHOOK_FALLBACK_RETRY_MS && !hooks.has(key(parentId, character))) return undefined;
      if (since !== undefined && now() - since > WEBHOOK_FALLBACK_RETRY_MS) fullSince.delete(parentId);
      const entry = key(parentId, character);
      if ((retryAt.get(entry) ?? Number.POSITIVE_INFINITY) < now()) {
        retryAt.delete(entry);
        hooks.delete(entry);
      }
      let pending = hooks.get(entry);
      if (!pending) {
        pending = resolve(parentId, character, pictures);
        pending.catch(() => hooks.delete(key(parentId, character)));
        hooks.set(key(parentId, character), pending);
      }
      return pending;
    },
    forget(webhookId: string): void {
      const entry = keyOfWebhook.get(webhookId);
      if (entry !== undefined) hooks.delete(entry);
      keyOfWebhook.delete(webhookId);
    },
  };
}
