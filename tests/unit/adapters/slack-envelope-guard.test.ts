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
    const client = new EventEmitter();
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
});
