/**
 * "Show whole file" (issue 40): people approve what they can see. A new file too long for the card's
 * preview gets a Show whole file button that posts the whole proposed file in the thread; a short one
 * needs none; after the decision the button is gone and a stale click says why instead of posting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { APPROVE_ACTION, SHOW_WHOLE_FILE_ACTION } from '../../../src/commands/action-ids.js';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const LONG = Array.from({ length: 60 }, (_, index) => `line ${index + 1}`).join('\n');
const card = (harness: Harness) => harness.surface.messages.find((message) => /wants to run/.test(message.text));

async function click(harness: Harness, actionId: string, value: string, ephemeral: string[]): Promise<void> {
  const shown = card(harness)!;
  await harness.send({
    platform: 'playground',
    channel: 'playground:general',
    user: 'playground:alice',
    fromBot: false,
    type: 'button-action',
    id: `click-${actionId}-${Math.random()}`,
    actionId,
    value,
    message: shown.ref,
    thread: shown.thread,
    replyEphemeral: async (text) => void ephemeral.push(text),
  });
}

describe('Show whole file on an approval card', () => {
  it('posts the whole proposed file in the thread when the preview was cut, and says so once decided', async () => {
    h = await startCommandHarness({ steps: [callTool('write_file', { path: 'docs/long.md', content: LONG }, 'w1'), say('Written.')] });
    await h.mention('geordi write the long file', { message: 'root' });
    await h.surface.waitFor(() => card(h!)?.buttons.some((button) => button.actionId === APPROVE_ACTION) === true);
    const shown = card(h)!;
    expect(shown.text).toMatch(/… 40 more lines …/);
    expect(shown.buttons.map((button) => button.label)).toEqual(['Approve', 'Approve “write_file” for this run', 'Deny', 'Show whole file']);
    const approvalId = shown.buttons[0]!.value;

    const ephemeral: string[] = [];
    await click(h, SHOW_WHOLE_FILE_ACTION, approvalId, ephemeral);
    expect(ephemeral).toEqual([]);
    expect(h.surface.uploads).toHaveLength(1);
    expect(h.surface.uploads[0]).toMatchObject({ fileName: 'long.md', content: LONG });

    await click(h, APPROVE_ACTION, approvalId, ephemeral);
    await h.surface.waitFor(() => h!.surface.messages.some((message) => message.text.includes('Written.')));
    expect(card(h)!.buttons).toEqual([]);
    // A click on the button after the decision (a stale card elsewhere) posts nothing more.
    await click(h, SHOW_WHOLE_FILE_ACTION, approvalId, ephemeral);
    expect(ephemeral.at(-1)).toMatch(/no longer waiting for a decision/);
    expect(h.surface.uploads).toHaveLength(1);
  });

  it('offers no such button when the card shows the whole file already', async () => {
    h = await startCommandHarness({ steps: [callTool('write_file', { path: 'short.md', content: 'one\ntwo\n' }, 'w1'), say('Written.')] });
    await h.mention('geordi write the short file', { message: 'root' });
    await h.surface.waitFor(() => card(h!)?.buttons.some((button) => button.actionId === APPROVE_ACTION) === true);
    expect(card(h)!.buttons.map((button) => button.actionId)).not.toContain(SHOW_WHOLE_FILE_ACTION);
    expect(card(h)!.text).toMatch(/\+ one\n\+ two/);
  });
});
