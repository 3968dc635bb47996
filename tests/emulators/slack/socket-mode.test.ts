import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startSlackEmulator, type SlackEmulator } from './slack-emulator.js';

let emulator: SlackEmulator;
const sockets: WebSocket[] = [];

beforeEach(async () => {
  emulator = await startSlackEmulator({ ackTimeoutMs: 200 });
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await emulator.close();
});

async function openUrl(): Promise<string> {
  const response = await fetch(`${emulator.apiUrl}apps.connections.open`, { method: 'POST', headers: { authorization: `Bearer ${emulator.appToken}` } });
  return String(((await response.json()) as { url: string }).url);
}

/** A bare Socket Mode client: collects frames; acks with `ack` when given. */
async function connectClient(ack?: (frame: Record<string, unknown>, socket: WebSocket) => void) {
  const frames: Record<string, unknown>[] = [];
  const socket = new WebSocket(await openUrl());
  sockets.push(socket);
  socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString()) as Record<string, unknown>;
    frames.push(frame);
    if (frame.envelope_id && ack) ack(frame, socket);
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  await emulator.waitForConnection();
  return { socket, frames };
}

const ackNow = (frame: Record<string, unknown>, socket: WebSocket) => socket.send(JSON.stringify({ envelope_id: frame.envelope_id }));

describe('Socket Mode', () => {
  it('says hello with the app id, and refuses a ticket used twice', async () => {
    const url = await openUrl();
    const first = new WebSocket(url);
    sockets.push(first);
    const hello = await new Promise<Record<string, unknown>>((resolve) => first.once('message', (data: Buffer) => resolve(JSON.parse(data.toString()))));
    expect(hello).toMatchObject({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A0APP' } });
    const reused = new WebSocket(url);
    const refusal = await new Promise<string>((resolve) => reused.once('unexpected-response', (_request, response) => resolve(String(response.statusCode))));
    expect(refusal).toBe('403');
  });

  it('wraps events in events_api envelopes with retry fields and the bot authorization', async () => {
    const { frames } = await connectClient(ackNow);
    const result = await emulator.deliverEvent({ type: 'app_mention', text: '<@U0BOT> hi' }, { retryAttempt: 2, retryReason: 'timeout', eventId: 'Ev0FIXED' });
    expect(result.eventId).toBe('Ev0FIXED');
    expect(frames.at(-1)).toMatchObject({
      type: 'events_api',
      envelope_id: result.envelopeId,
      accepts_response_payload: false,
      retry_attempt: 2,
      retry_reason: 'timeout',
      payload: {
        type: 'event_callback',
        event_id: 'Ev0FIXED',
        team_id: 'T0TEAM',
        api_app_id: 'A0APP',
        event: { type: 'app_mention' },
        authorizations: [{ user_id: 'U0BOT', is_bot: true }],
      },
    });
  });

  it('sends a duplicate as the same envelope twice and matches both acks', async () => {
    const { frames } = await connectClient(ackNow);
    const [first, second] = await emulator.deliverDuplicate({ type: 'app_mention', text: 'twice' });
    expect(first.envelopeId).toBe(second.envelopeId);
    expect(first.eventId).toBe(second.eventId);
    expect(frames.filter((frame) => frame.envelope_id === first.envelopeId)).toHaveLength(2);
    const sends = emulator.envelopes.filter((record) => record.envelope.envelope_id === first.envelopeId);
    expect(sends.map((record) => record.acks.length)).toEqual([1, 1]);
  });

  it('rejects when the ack misses the deadline, and records the late ack', async () => {
    const held: Record<string, unknown>[] = [];
    const { socket } = await connectClient((frame) => held.push(frame));
    await expect(emulator.deliverEvent({ type: 'app_mention', text: 'slow' })).rejects.toThrow(/did not ack .* within 200 ms/);
    const frame = held[0];
    if (!frame) throw new Error('the envelope never reached the client');
    socket.send(JSON.stringify({ envelope_id: frame.envelope_id }));
    await emulator.waitFor((e) => e.lateAcks.length === 1);
    expect(emulator.lateAcks[0]).toMatchObject({ envelopeId: frame.envelope_id, late: true });
    expect(emulator.lateAcks[0]?.ackMs).toBeGreaterThanOrEqual(200);
  });

  it('sends disconnect with its reason, then closes the socket', async () => {
    const { socket, frames } = await connectClient();
    const closed = new Promise<number>((resolve) => socket.once('close', (code: number) => resolve(code)));
    emulator.sendDisconnect('warning');
    expect(await closed).toBe(1000);
    expect(frames.at(-1)).toMatchObject({ type: 'disconnect', reason: 'warning' });
    expect(emulator.openConnections).toBe(0);
  });
});
