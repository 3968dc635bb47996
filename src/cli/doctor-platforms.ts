/**
 * Doctor's platform checks: the Slack token and its scopes (`auth.test` and the `x-oauth-scopes`
 * header), and the Discord token with its Message Content intent (the application's flags).
 * https://api.slack.com/methods/auth.test · https://discord.com/developers/docs/resources/application
 */
import type { AppConfig } from '../config/app-config.js';
import { avatarUrlOf } from '../commands/reply/avatars.js';
import { isAvatarFile } from '../core/data/avatar-files.js';
import type { Roster } from '../core/data/types.js';

/** Discord's webhooks per channel (src/adapters/discord/webhooks.ts, not imported: doctor loads no discord.js). */
const DISCORD_MAX_WEBHOOKS_PER_CHANNEL = 15;

/** Every scope the bot uses, and only those (slack-app-manifest.yaml asks for exactly these; DMs are not supported). */
export const SLACK_REQUIRED_SCOPES = [
  'app_mentions:read',
  'chat:write',
  'chat:write.customize',
  'commands',
  'channels:history',
  'groups:history',
  // conversations.info: DMs, private or public, and how many are in it (who may approve DANGEROUS calls).
  'channels:read',
  'groups:read',
  'im:read',
  // Direct messages (message.im) and the thread history of a DM.
  'im:history',
  // Attachments: url_private_download with the bot token (issue 23).
  'files:read',
  'files:write',
  'im:write',
];

/** Scopes the manifest asks for whose absence costs a nicety, not a feature: doctor says so without failing. */
export const SLACK_OPTIONAL_SCOPES = [
  // The assistant surface of DMs with the app: suggested prompts and thread titles (issue 24).
  'assistant:write',
  // usergroups.users.list: the approval policy's Slack user groups (issue 39); without it such a group has no members.
  'usergroups:read',
];

const GATEWAY_MESSAGE_CONTENT = 1 << 18;
const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;

export interface CheckReporter {
  ok(text: string): void;
  bad(text: string, fix?: string): void;
  info(text: string): void;
}

export async function checkSlack(config: NonNullable<AppConfig['slack']>, report: CheckReporter, fetchImplementation: typeof fetch = fetch): Promise<void> {
  try {
    const response = await fetchImplementation(new URL('auth.test', config.apiUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${config.botToken}` },
      signal: AbortSignal.timeout(5000),
    });
    const body = (await response.json()) as { ok?: boolean; error?: string; team?: string; user?: string };
    if (!body.ok) {
      report.bad(
        `Slack rejected SLACK_BOT_TOKEN (${body.error ?? response.status})`,
        'copy the Bot User OAuth Token again from your app\'s "OAuth & Permissions" page',
      );
      return;
    }
    report.ok(`Slack token works: bot @${body.user ?? '?'} in ${body.team ?? '?'}`);
    const granted = new Set(
      (response.headers.get('x-oauth-scopes') ?? '')
        .split(',')
        .map((scope) => scope.trim())
        .filter(Boolean),
    );
    const missing = SLACK_REQUIRED_SCOPES.filter((scope) => !granted.has(scope));
    if (missing.length === 0) report.ok('Slack scopes: all granted');
    else
      report.bad(
        `Slack scopes missing: ${missing.join(', ')}${missing.includes('chat:write.customize') ? ' (characters will post as the bot, name in bold)' : ''}`,
        'add them in "OAuth & Permissions" (or recreate the app from slack-app-manifest.yaml) and reinstall the app',
      );
    const optional = SLACK_OPTIONAL_SCOPES.filter((scope) => !granted.has(scope));
    if (optional.length > 0)
      report.info(`Slack scopes not granted: ${optional.join(', ')} — DMs with the app get no suggested prompts or thread titles (add them and reinstall)`);
    if (config.appToken) {
      // Socket Mode: the app-level token must be able to open a connection.
      const socket = await fetchImplementation(new URL('apps.connections.open', config.apiUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${config.appToken}` },
        signal: AbortSignal.timeout(5000),
      });
      const opened = (await socket.json()) as { ok?: boolean; error?: string };
      if (opened.ok) report.ok('Slack Socket Mode: SLACK_APP_TOKEN can connect');
      else
        report.bad(
          `Slack refused SLACK_APP_TOKEN (${opened.error ?? socket.status})`,
          'create an app-level token with connections:write (Basic Information → App-Level Tokens) and turn Socket Mode on',
        );
    } else if (config.signingSecret) {
      report.info('Slack HTTP mode: Request URLs must point at https://<your host>/slack/events (served on TSUKA_HTTP_PORT)');
    }
  } catch (error) {
    report.bad(`Slack API at ${config.apiUrl} not reachable: ${error instanceof Error ? error.message : String(error)}`, 'check the network or SLACK_API_URL');
  }
}

/** View Channels, Send Messages, Create Public Threads, Send Messages in Threads, Manage Webhooks, Attach Files, Read Message History. */
export const DISCORD_INVITE_PERMISSIONS = '309774617600';

export function discordInviteLink(applicationId: string): string {
  return `https://discord.com/oauth2/authorize?client_id=${applicationId}&scope=bot%20applications.commands&permissions=${DISCORD_INVITE_PERMISSIONS}`;
}

export async function checkDiscord(config: NonNullable<AppConfig['discord']>, report: CheckReporter, fetchImplementation: typeof fetch = fetch): Promise<void> {
  try {
    const response = await fetchImplementation(`${config.apiUrl.replace(/\/$/, '')}/v10/applications/@me`, {
      headers: { authorization: `Bot ${config.botToken}` },
      signal: AbortSignal.timeout(5000),
    });
    if (response.status === 401) {
      report.bad('Discord rejected DISCORD_BOT_TOKEN', 'reset the token in the Developer Portal (Bot → Reset Token) and set it again');
      return;
    }
    const body = (await response.json()) as { id?: string; name?: string; flags?: number };
    report.ok(`Discord token works: application ${body.name ?? '?'}`);
    // The link a new team needs next: the bot with the permissions and scopes the README names.
    if (body.id) report.info(`invite the bot: ${discordInviteLink(body.id)}`);
    const flags = body.flags ?? 0;
    if (flags & (GATEWAY_MESSAGE_CONTENT | GATEWAY_MESSAGE_CONTENT_LIMITED))
      report.ok('Discord Message Content intent: enabled (thread follow-ups work without a mention)');
    else
      report.bad(
        'Discord Message Content intent: not enabled — follow-ups in threads need a mention',
        'Developer Portal → your application → Bot → Privileged Gateway Intents → Message Content',
      );
    if (config.guildIds.length === 0) report.info('TSUKA_DISCORD_GUILD_IDS is not set: slash commands are registered globally and take a while to appear');
  } catch (error) {
    report.bad(
      `Discord API at ${config.apiUrl} not reachable: ${error instanceof Error ? error.message : String(error)}`,
      'check the network or DISCORD_API_URL',
    );
  }
}

/** Where Discord and Slack fetch the characters' pictures (TSUKA_PUBLIC_URL), or what they show without it. */
export function checkPublicUrl(config: Pick<AppConfig, 'publicUrl' | 'slack' | 'discord'>, report: CheckReporter): void {
  if (config.publicUrl) {
    report.ok(`Character pictures: ${config.publicUrl}/avatars/<name>.png (TSUKA_PUBLIC_URL) — Discord and Slack must be able to fetch that address`);
    return;
  }
  const without = [
    config.discord ? "Discord posts carry each character's picture on a webhook of its own (see each character's Discord face below)" : undefined,
    config.slack ? "Slack posts show each character's emoji" : undefined,
  ].filter(Boolean);
  report.info(
    `TSUKA_PUBLIC_URL is not set: ${without.join(', ')} (characters whose avatar is an https URL keep it)\n    → set TSUKA_PUBLIC_URL to the address at which Discord and Slack reach this host's HTTP server (TSUKA_HTTP_PORT), e.g. https://tsuka.example.com, to give every character its own picture (served at /avatars/<name>.png)`,
  );
}

/**
 * What each character will look like on Discord: the picture at its URL (its own, or under
 * TSUKA_PUBLIC_URL), else its picture on a webhook of its own in each channel (no public address
 * needed); where a channel's 15 webhooks are taken, its name (and emoji) only.
 */
export function discordFaceLines(roster: Pick<Roster, 'characters' | 'avatarImages'>, publicUrl: string | undefined): string[] {
  return [...roster.characters.values()].map((character) => {
    const url = avatarUrlOf(character, publicUrl);
    if (url) return `Discord face of ${character.aiName}: the picture at ${url} (Discord must be able to fetch it)`;
    const picture = roster.avatarImages?.has(character.name) ? `its picture file ${character.avatar}` : 'its generated picture';
    const emoji = isAvatarFile(character.avatar) || /^https?:/.test(character.avatar) ? '' : ` ${character.avatar}`;
    return `Discord face of ${character.aiName}: ${picture}, on a webhook of its own in each channel (no public address needed); in a channel whose ${DISCORD_MAX_WEBHOOKS_PER_CHANNEL} webhooks are taken: the name${emoji ? ` with${emoji}` : ''} only`;
  });
}
