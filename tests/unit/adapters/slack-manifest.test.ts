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

  it('is on the Agent messaging experience (issue 37): agent_view with its description, its scope and its events, not the retiring assistant view', () => {
    const description = /^ {2}agent_view:\n {4}agent_description: (.+)$/m.exec(manifest)?.[1];
    expect(description).toBeDefined();
    expect([...description!].length).toBeLessThanOrEqual(300);
    expect(manifest).toMatch(/^features:\n(?: {2}.*\n)* {2}agent_view:\n/m);
    expect(manifest).not.toMatch(/^ {2}assistant_view:/m);
    // The scopes Slack lists for agents: assistant:write, the DM's history, chat:write, mentions.
    for (const scope of ['assistant:write', 'im:history', 'chat:write', 'app_mentions:read']) expect(manifest).toContain(`- ${scope}\n`);
    const events = /bot_events:\n((?:\s+- \S+\n)+)/.exec(manifest)?.[1] ?? '';
    // agent_session_stopped: the native Stop of an agent session (without it Slack shows no Stop).
    for (const event of ['app_home_opened', 'app_context_changed', 'message.im', 'agent_session_stopped']) expect(events).toContain(`- ${event}\n`);
    expect(events).not.toContain('assistant_thread_started');
  });

  it('the adapter listens to every event the manifest subscribes to, and still to the assistant view’s', () => {
    const events = readFileSync(path.resolve(import.meta.dirname, '../../../src/adapters/slack/events.ts'), 'utf8');
    for (const event of ['app_home_opened', 'app_context_changed', 'app_mention', 'assistant_thread_started', 'assistant_thread_context_changed'])
      expect(events).toContain(`app.event('${event}'`);
    const sessions = readFileSync(path.resolve(import.meta.dirname, '../../../src/adapters/slack/agent-sessions.ts'), 'utf8');
    expect(sessions).toContain("app.event('agent_session_stopped'");
  });
});
