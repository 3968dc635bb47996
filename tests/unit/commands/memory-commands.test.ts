/**
 * Memory in chat keeps to where it was said (issue 21): a fact saved by a turn in one channel never
 * reaches a turn of another; `/tsuka memory|forget|pin|unpin` from another channel do not find it;
 * in its own channel, forget/pin/unpin are its author's or an admin's; `/tsuka memory share` is an
 * admin's and makes it every channel's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, say, type ScriptedStep } from '../../../src/core/model/scripted-model.js';
import type { ModelRequest } from '../../../src/core/model/language-model.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness;
const PRIVATE = 'playground:sec-private';
const GENERAL = 'playground:general';
const ALICE = 'playground:alice';
const BOB = 'playground:bob';
const ADMIN = 'playground:admin';
const VAULT = 'The vault code is kept in the blue binder.';

/** The model's answers, read as the turns ask (one harness for every case). */
const steps: ScriptedStep[] = [];
beforeAll(async () => {
  harness = await startCommandHarness({ steps, settings: { admins: [ADMIN] } });
});
afterAll(async () => {
  await harness?.stop();
});

const tsuka = async (text: string, channel: string, user: string): Promise<string> => (await harness.slash('tsuka', text, { channel, user })).join('\n');
const promptText = (request: ModelRequest): string => JSON.stringify(request.messages);

async function turn(channel: string, message: string, text: string, answers: ScriptedStep[]): Promise<ModelRequest[]> {
  const before = harness.model.requests.length;
  steps.push(...answers);
  await harness.mention(text, { channel, message, user: ALICE });
  await harness.surface.waitFor(() =>
    harness.surface.inThread(`thread:${message}`).some((reply) => reply.text.includes('Noted') && reply.buttons.length === 0),
  );
  return harness.model.requests.slice(before);
}

describe('memory scoped to the channel where it was said', () => {
  let vaultId = '';

  it('a fact saved in a private channel is in no request of another channel, and in its own', async () => {
    await turn(PRIVATE, 'p1', `obrien remember: ${VAULT}`, [callTool('save_memory', { content: VAULT }), say('Noted.')]);
    const [saved] = await harness.engine.memory.list(`channel:${PRIVATE}`);
    expect(saved).toMatchObject({ content: VAULT, savedBy: ALICE });
    vaultId = saved!.id;

    const general = await turn(GENERAL, 'g1', 'obrien where is the vault code kept?', [say('Noted.')]);
    expect(general.length).toBeGreaterThan(0);
    for (const request of general) expect(promptText(request)).not.toContain('blue binder');
    const own = await turn(PRIVATE, 'p2', 'obrien where is the vault code kept?', [say('Noted.')]);
    expect(promptText(own[0]!)).toContain('blue binder');
  });

  it('is not found from another channel by /tsuka memory, forget, pin or unpin — even for an admin', async () => {
    expect(await tsuka('memory vault binder', GENERAL, ALICE)).toBe('No memory matches "vault binder".');
    expect(await tsuka('memory', GENERAL, ALICE)).not.toContain(vaultId);
    for (const command of ['forget', 'pin', 'unpin']) expect(await tsuka(`${command} ${vaultId}`, GENERAL, ADMIN)).toMatch(/^No fact with id/);
    expect(await tsuka(`memory share ${vaultId}`, GENERAL, ADMIN)).toMatch(/^No fact with id/);
    expect(await harness.engine.memory.get(vaultId)).toMatchObject({ pinned: false });
  });

  it("in its channel: refuses another person's forget and pin, lets the author and an admin", async () => {
    expect(await tsuka('memory vault', PRIVATE, BOB)).toContain(vaultId);
    expect(await tsuka(`forget ${vaultId}`, PRIVATE, BOB)).toMatch(/Only the person who saved .* or an admin/);
    expect(await tsuka(`pin ${vaultId}`, PRIVATE, BOB)).toMatch(/Only the person who saved/);
    expect(await harness.engine.memory.get(vaultId)).toMatchObject({ pinned: false });
    expect(await tsuka(`pin ${vaultId}`, PRIVATE, ALICE)).toBe(`Pinned ${vaultId}.`);
    expect(await tsuka(`unpin ${vaultId}`, PRIVATE, ADMIN)).toBe(`Unpinned ${vaultId}.`);
  });

  it("shares a fact only at an admin's word; then every channel sees it", async () => {
    const { fact } = await harness.engine.memory.save({
      content: 'Releases are cut on Tuesdays.',
      scope: `channel:${PRIVATE}`,
      author: 'obrien',
      savedBy: ALICE,
    });
    expect(await tsuka(`memory share ${fact.id}`, PRIVATE, ALICE)).toBe('Only an admin can share a fact with every channel.');
    expect(await tsuka('memory releases', GENERAL, BOB)).toBe('No memory matches "releases".');
    const shared = await tsuka(`memory share ${fact.id}`, PRIVATE, ADMIN);
    expect(shared).toMatch(/^Shared: every channel now sees it as /);
    expect(await tsuka('memory releases', GENERAL, BOB)).toMatch(/\[fact, shared\] Releases are cut on Tuesdays\./);
    // The private fact stayed where it was.
    expect(await tsuka('memory', GENERAL, BOB)).not.toContain('binder');
  });
});
