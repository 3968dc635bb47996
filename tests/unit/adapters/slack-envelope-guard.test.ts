import { describe, expect, it } from 'vitest';
import { envelopeProblem } from '../../../src/adapters/slack/envelope-guard.js';

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
