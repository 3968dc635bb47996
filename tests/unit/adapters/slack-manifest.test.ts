import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLACK_COMMANDS } from '../../../src/adapters/slack/events.js';
import { SLACK_OPTIONAL_SCOPES, SLACK_REQUIRED_SCOPES } from '../../../src/cli/doctor-platforms.js';

const manifest = readFileSync(path.resolve(import.meta.dirname, '../../../slack-app-manifest.yaml'), 'utf8');

describe('slack-app-manifest.yaml', () => {
  it('declares every slash command the adapter listens to', () => {
    for (const command of SLACK_COMMANDS) expect(manifest).toMatch(new RegExp(`- command: /${command}\\n`));
  });

  it('asks for exactly the scopes the bot uses (doctor checks the same list), and Socket Mode and interactivity are on', () => {
    const scopes = /scopes:\n\s+bot:\n((?:\s+- \S+\n)+)/
      .exec(manifest)?.[1]
      ?.trim()
      .split(/\s*-\s+/)
      .filter(Boolean);
    expect(scopes?.sort()).toEqual([...SLACK_REQUIRED_SCOPES, ...SLACK_OPTIONAL_SCOPES].sort());
    expect(scopes).not.toContain('reactions:write');
    expect(manifest).toMatch(/socket_mode_enabled: true/);
    expect(manifest).toMatch(/interactivity:\n\s+is_enabled: true/);
  });

  it('subscribes to mentions, thread messages (follow-ups without a mention) and direct messages, with the Messages tab open', () => {
    for (const event of ['app_mention', 'message.channels', 'message.groups', 'message.im']) expect(manifest).toContain(`- ${event}\n`);
    for (const scope of ['im:history', 'files:read']) expect(manifest).toContain(`- ${scope}\n`);
    expect(manifest).toMatch(/messages_tab_enabled: true\n\s+messages_tab_read_only_enabled: false/);
  });

  it('opens DMs as assistant threads: the assistant view, its scope and its event', () => {
    expect(manifest).toMatch(/features:[\s\S]*assistant_view:\n\s+assistant_description: \S/);
    expect(manifest).toContain('- assistant:write\n');
    expect(manifest).toContain('- assistant_thread_started\n');
  });
});
