import { describe, expect, it } from 'vitest';
import { deduplicate } from '../../../src/commands/middleware/deduplicate.js';
import type { EventContext } from '../../../src/commands/middleware/compose.js';
import type { InboundEvent } from '../../../src/commands/inbound-event.js';
import { silentLogger } from '../../../src/core/logger.js';

function memoryDedupe() {
  const seen = new Set<string>();
  return { markSeen: async (key: string) => (seen.has(key) ? false : (seen.add(key), true)) };
}

const mention = (id: string, message: string): InboundEvent => ({
  type: 'mention',
  id,
  platform: 'slack',
  channel: 'slack:T0/C1',
  user: 'slack:U1',
  fromBot: false,
  message,
  text: 'hello',
});

describe('deduplicate', () => {
  const context = { logger: silentLogger } as EventContext;

  it('passes a message once, whether it comes back under the same event id or a new one', async () => {
    const middleware = deduplicate(memoryDedupe());
    const handled: string[] = [];
    const run = (event: InboundEvent) => middleware(event, context, async () => void handled.push(event.id));
    await run(mention('Ev1', 'slack:T0/C1/1700000000.000100'));
    await run(mention('Ev1', 'slack:T0/C1/1700000000.000100'));
    await run(mention('Ev2', 'slack:T0/C1/1700000000.000100'));
    await run(mention('Ev3', 'slack:T0/C1/1700000000.000200'));
    expect(handled).toEqual(['Ev1', 'Ev3']);
  });

  it('keeps distinct clicks on one message apart (buttons are keyed by their own id only)', async () => {
    const middleware = deduplicate(memoryDedupe());
    const handled: string[] = [];
    const click = (id: string): InboundEvent => ({
      type: 'button-action',
      id,
      platform: 'slack',
      channel: 'slack:T0/C1',
      user: 'slack:U1',
      fromBot: false,
      actionId: 'tsuka_stop',
      value: 'run-1',
      message: 'slack:T0/C1/1.1',
      replyEphemeral: async () => undefined,
    });
    await middleware(click('a'), context, async () => void handled.push('a'));
    await middleware(click('b'), context, async () => void handled.push('b'));
    expect(handled).toEqual(['a', 'b']);
  });
});
