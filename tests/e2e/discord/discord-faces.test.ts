/**
 * Discord faces without public infrastructure (issue 40): with no TSUKA_PUBLIC_URL each character
 * posts through a webhook of its own, created with its picture as image data (its picture file, or
 * the generated one). In a channel whose 15 webhooks are taken the shared webhook carries the name
 * only. One app for the whole file: Spock has a picture file, Geordi the generated picture.
 */
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../src/cli/main.js';
import { svgToPng } from '../../../src/commands/charts/svg-to-png.js';
import { avatarEmoji } from '../../../src/adapters/discord/markdown.js';
import { DEFAULT_CHANNEL_ID } from '../../emulators/discord/discord-emulator.js';
import { startDiscordHarness, type DiscordHarness } from './discord-harness.js';

const FULL_CHANNEL = '1250000000000000777';
let harness: DiscordHarness;
let root: string;
let spockPicture: Buffer;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-faces-'));
  for (const name of ['roles', 'traits', 'teams', 'tools_schemas', 'providers.json']) await symlink(path.join(PACKAGE_ROOT, name), path.join(root, name));
  await cp(path.join(PACKAGE_ROOT, 'characters'), path.join(root, 'characters'), { recursive: true });
  spockPicture = await svgToPng('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#2050a0"/></svg>');
  await writeFile(path.join(root, 'characters', 'spock.png'), spockPicture);
  const spockFile = path.join(root, 'characters', 'spock.json');
  await writeFile(spockFile, JSON.stringify({ ...JSON.parse(await readFile(spockFile, 'utf8')), avatar: 'spock.png' }, null, 2));
  harness = await startDiscordHarness({
    rootDirectory: root,
    environment: { TSUKA_PUBLIC_URL: undefined },
    emulator: {
      channels: [
        { id: DEFAULT_CHANNEL_ID, name: 'general' },
        { id: FULL_CHANNEL, name: 'full' },
      ],
    },
  });
  // Other apps' webhooks leave one place in #full: the shared TSUKA webhook takes it.
  for (let index = 0; index < 14; index++) harness.discord.addForeignWebhook(FULL_CHANNEL, `Other ${index}`);
});

afterAll(async () => {
  await harness?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('Discord faces without TSUKA_PUBLIC_URL', () => {
  it('posts each character through its own webhook carrying its picture, the shared webhook made first', async () => {
    const { discord, model } = harness;
    model.enqueue({ text: 'Geordi here.' });
    const question = harness.mention({ content: 'geordi check the api' });
    const geordi = await harness.waitForReply(question.id, 'Geordi here.');
    model.enqueue({ text: 'Spock here.' });
    harness.mention({ channelId: question.id, content: 'spock is it sound?' });
    const spock = await harness.waitForReply(question.id, 'Spock here.');

    const hooks = discord.webhooks().filter((hook) => hook.channel_id === discord.defaultChannelId);
    expect(hooks.map((hook) => hook.name).sort()).toEqual(['TSUKA', 'TSUKA:geordi', 'TSUKA:spock']);
    const hookOf = (name: string) => hooks.find((hook) => hook.name === name)!;
    expect(geordi.webhookId).toBe(hookOf('TSUKA:geordi').id);
    expect(spock.webhookId).toBe(hookOf('TSUKA:spock').id);
    // The picture is the webhook's: no avatar_url, no emoji before the name.
    expect([geordi.username, spock.username]).toEqual(['Geordi', 'Spock']);
    expect([geordi.avatarUrl, spock.avatarUrl]).toEqual([undefined, undefined]);
    expect(discord.webhookAvatar(hookOf('TSUKA:spock').id)).toEqual({ contentType: 'image/png', bytes: spockPicture });
    const generated = discord.webhookAvatar(hookOf('TSUKA:geordi').id);
    expect(generated?.contentType).toBe('image/png');
    expect(generated!.bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(geordi.payload.author.avatar).toBe(hookOf('TSUKA:geordi').avatar);
    expect(hookOf('TSUKA:geordi').avatar).not.toBeNull();
  });

  it("in a channel whose 15 webhooks are taken, the shared webhook posts the character's name with its emoji", async () => {
    const { discord, model } = harness;
    model.enqueue({ text: 'Geordi in a full channel.' });
    const question = harness.mention({ channelId: FULL_CHANNEL, content: 'geordi check the api' });
    const answer = await harness.waitForReply(question.id, 'Geordi in a full channel.');
    const hooks = discord.webhooks().filter((hook) => hook.channel_id === FULL_CHANNEL);
    expect(hooks).toHaveLength(15);
    const shared = hooks.find((hook) => hook.name === 'TSUKA' && hook.application_id === discord.applicationId)!;
    expect(answer.webhookId).toBe(shared.id);
    expect(answer.username).toBe(`${avatarEmoji(':wrench:')} Geordi`);
    expect(answer.avatarUrl).toBeUndefined();
    // Discord said 30007 (Maximum number of webhooks reached) to the character's webhook.
    expect(discord.calls.filter((call) => call.method === 'POST' && call.path === `/channels/${FULL_CHANNEL}/webhooks`).map((call) => call.status)).toEqual([
      200, 400,
    ]);
  });
});
