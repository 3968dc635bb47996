import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MISSING_STOP_SUBSCRIPTION } from './agent-sessions.js';
import { startSlackEmulator, type SlackEmulator } from './slack-emulator.js';

let emulator: SlackEmulator;
beforeEach(async () => {
  emulator = await startSlackEmulator();
});
afterEach(async () => {
  await emulator.close();
});

async function callApi(method: string, body: Record<string, unknown>) {
  const response = await fetch(`${emulator.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emulator.botToken}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** A thread root in C1, as a person's message. */
async function root(): Promise<string> {
  const posted = await callApi('chat.postMessage', { channel: 'C1', text: 'root' });
  return String(posted.ts);
}

describe('agent sessions (agents.sessions.setStatus / rename, agent_session_stopped)', () => {
  it('creates the session with its title on the first status (the title of a later call is ignored), records every status and renames', async () => {
    const thread = await root();
    expect(await callApi('agents.sessions.setStatus', { channel_id: 'C1', thread_ts: thread, status: 'processing', title: 'First' })).toMatchObject({
      ok: true,
    });
    await callApi('agents.sessions.setStatus', { channel_id: 'C1', thread_ts: thread, status: 'active', title: 'Ignored' });
    const session = emulator.agentSessions.get(`C1/${thread}`)!;
    expect(session.title).toBe('First');
    expect(session.statuses.map((entry) => entry.status)).toEqual(['processing', 'active']);
    expect(await callApi('agents.sessions.rename', { channel_id: 'C1', thread_ts: thread, title: 'Renamed' })).toEqual({ ok: true, title: 'Renamed' });
    expect(session.title).toBe('Renamed');
  });

  it("answers Slack's errors: an unknown status, a title over 200 characters, an unknown thread; a refusing workspace; the warning without the event subscription", async () => {
    const thread = await root();
    expect((await callApi('agents.sessions.setStatus', { channel_id: 'C1', thread_ts: thread, status: 'busy' })).error).toBe('invalid_status');
    expect((await callApi('agents.sessions.setStatus', { channel_id: 'C1', thread_ts: thread, status: 'processing', title: 'x'.repeat(201) })).error).toBe(
      'invalid_title',
    );
    expect((await callApi('agents.sessions.setStatus', { channel_id: 'C1', thread_ts: '1.000001', status: 'processing' })).error).toBe('thread_not_found');
    emulator.setAgentSessions({ subscribed: false });
    expect((await callApi('agents.sessions.setStatus', { channel_id: 'C1', thread_ts: thread, status: 'processing' })).warning).toBe(MISSING_STOP_SUBSCRIPTION);
    emulator.setAgentSessions({ refusal: 'not_allowed' });
    expect(await callApi('agents.sessions.setStatus', { channel_id: 'C1', thread_ts: thread, status: 'processing' })).toEqual({
      ok: false,
      error: 'not_allowed',
    });
  });

  it("chat.stopStream's session_status sets the thread's session", async () => {
    const thread = await root();
    await callApi('agents.sessions.setStatus', { channel_id: 'C1', thread_ts: thread, status: 'processing' });
    const started = await callApi('chat.startStream', {
      channel: 'C1',
      thread_ts: thread,
      markdown_text: 'Hi',
      recipient_user_id: 'U1',
      recipient_team_id: emulator.teamId,
    });
    await callApi('chat.stopStream', { channel: 'C1', ts: started.ts, session_status: 'active' });
    expect(emulator.agentSessions.get(`C1/${thread}`)!.statuses).toEqual([
      { status: 'processing', by: 'setStatus' },
      { status: 'active', by: 'chat.stopStream' },
    ]);
  });
});
