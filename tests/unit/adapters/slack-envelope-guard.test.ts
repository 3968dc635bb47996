import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { envelopeProblem, guardSocketModeEnvelopes } from '../../../src/adapters/slack/envelope-guard.js';
import { silentLogger } from '../../../src/core/logger.js';

describe('Socket Mode envelope check', () => {
  it('passes what Bolt can read: control messages and well-formed envelopes', () => {
    expect(envelopeProblem({ type: 'hello', num_connections: 1 })).toBeUndefined();
    expect(envelopeProblem({ type: 'disconnect', reason: 'refresh_requested' })).toBeUndefined();
    expect(envelopeProblem({ envelope_id: 'e1', type: 'events_api', payload: { event: { type: 'app_mention' } } })).toBeUndefined();
    expect(envelopeProblem({ envelope_id: 'e2', type: 'interactive', payload: { type: 'block_actions' } })).toBeUndefined();
  });

  it('names what is missing in the envelopes that would crash or confuse it', () => {
    expect(envelopeProblem({ envelope_id: 'e1', type: 'events_api' })).toBe('no payload');
    expect(envelopeProblem({ envelope_id: 'e1', type: 'events_api', payload: null })).toBe('no payload');
    expect(envelopeProblem({ envelope_id: 'e1', type: 'events_api', payload: { type: 'event_callback' } })).toMatch(/without an event type/);
    expect(envelopeProblem({ envelope_id: 'e1', type: 'slash_commands' })).toBe('no payload');
    expect(envelopeProblem({ type: 'events_api', payload: {} })).toBe('no envelope_id');
    expect(envelopeProblem([1, 2])).toBe('not an object');
    expect(envelopeProblem({ payload: {} })).toBe('no type');
  });
});

describe('Socket Mode envelope pacing', () => {
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('hands a burst read at once to Bolt one envelope per turn of the event loop, in order', async () => {
    const client = Object.assign(new EventEmitter(), { send: async () => undefined });
    const seen: string[] = [];
    client.on('ws_message', (data: string) => void seen.push(JSON.parse(data).envelope_id));
    guardSocketModeEnvelopes(client as never, silentLogger);
    const frames = ['e1', 'e2', 'e3'].map((id) => JSON.stringify({ envelope_id: id, type: 'events_api', payload: { event: { type: 'app_mention' } } }));
    // What the WebSocket parser does with one socket read: every frame's event, synchronously.
    for (const frame of frames) client.emit('ws_message', frame, false);
    await Promise.resolve();
    expect(seen).toEqual([]);
    await nextTurn();
    expect(seen).toEqual(['e1']);
    await nextTurn();
    await nextTurn();
    expect(seen).toEqual(['e1', 'e2', 'e3']);
  });

  it('acknowledges every Events API envelope of a burst as it arrives, before Bolt sees any, and never twice', async () => {
    const sent: string[] = [];
    const client = Object.assign(new EventEmitter(), {
      async send(id: string) {
        sent.push(id);
      },
    });
    const boltSaw: string[] = [];
    // Bolt acks an event when it handles it: through the same client.send.
    client.on('ws_message', (data: string) => {
      const envelope = JSON.parse(data);
      boltSaw.push(envelope.envelope_id);
      void client.send(envelope.envelope_id);
    });
    guardSocketModeEnvelopes(client as never, silentLogger);
    const event = (id: string) => JSON.stringify({ envelope_id: id, type: 'events_api', payload: { event: { type: 'app_mention' } } });
    const command = JSON.stringify({ envelope_id: 'c1', type: 'slash_commands', payload: { command: '/tsuka' } });
    for (const frame of [event('e1'), event('e2'), command, event('e3')]) client.emit('ws_message', frame, false);
    // Synchronously, in the read itself: the events' acks are out, Bolt has seen nothing yet.
    expect(sent).toEqual(['e1', 'e2', 'e3']);
    expect(boltSaw).toEqual([]);
    for (let turn = 0; turn < 5; turn += 1) await nextTurn();
    expect(boltSaw).toEqual(['e1', 'e2', 'c1', 'e3']);
    // Bolt's own acks of the events were swallowed; the slash command's ack (which may carry a reply) went.
    expect(sent).toEqual(['e1', 'e2', 'e3', 'c1']);
  });
});
