import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLACK_COMMANDS } from '../../../src/adapters/slack/events.js';

const manifest = readFileSync(path.resolve(import.meta.dirname, '../../../slack-app-manifest.yaml'), 'utf8');

describe('slack-app-manifest.yaml', () => {
  it('declares every slash command the adapter listens to', () => {
    for (const command of SLACK_COMMANDS) expect(manifest).toMatch(new RegExp(`- command: /${command}\\n`));
  });

  it('asks for every scope the bot uses, and Socket Mode and interactivity are on', () => {
    for (const scope of ['app_mentions:read', 'chat:write', 'chat:write.customize', 'commands', 'channels:history', 'groups:history', 'im:history', 'files:write']) {
      expect(manifest).toContain(`- ${scope}\n`);
    }
    expect(manifest).toMatch(/socket_mode_enabled: true/);
    expect(manifest).toMatch(/interactivity:\n\s+is_enabled: true/);
  });

  it('subscribes to mentions and to thread messages (follow-ups without a mention)', () => {
    for (const event of ['app_mention', 'message.channels', 'message.groups', 'message.im']) expect(manifest).toContain(`- ${event}\n`);
  });
});
