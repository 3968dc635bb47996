/**
 * Attack (issue 41): whoever can write the store (a process that opened the SQLite file, a
 * sandboxed command that reached Redis) takes a record a person really approved — a RESTRICTED
 * write_file the requester approved — and copies it over the key of a pending DANGEROUS
 * delete_file that the requester may not approve alone, then publishes it (Redis) or lets the
 * timeout read it (SQLite). Its signature is the bot's own, but it is another call's: the delete is
 * denied, the file stays, the card never says "Approved by", and `tsuka audit --json` names the
 * call's tool as refused as tampered. Also: the same record replayed for a second identical call.
 */
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@redis/client';
import { afterEach, describe, expect, it } from 'vitest';
import { runAudit } from '../../../src/cli/audit-command.js';
import { APPROVE_ACTION } from '../../../src/commands/approvals/approval-flow.js';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import type { ApprovalRecord } from '../../../src/core/store/approval-store.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { startCommandHarness } from '../../support/command-harness.js';
import { startRedisServer } from '../../support/redis-server.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const SHARED = { kind: 'public', name: 'general', members: 5 } as const;
const cards = (h: Harness) => h.surface.messages.filter((message) => /wants to run/.test(message.text));
const liveCard = (h: Harness, tool: string) => h.surface.messages.find((message) => message.text.includes(`\`${tool}\``) && message.buttons.length > 0);
const approvalIdOf = (h: Harness, tool: string) => liveCard(h, tool)!.buttons.find((button) => button.actionId === APPROVE_ACTION)!.value;

async function click(h: Harness, tool: string, user: string): Promise<void> {
  const card = liveCard(h, tool)!;
  await h.send({
    platform: 'playground',
    channel: 'playground:general',
    user,
    fromBot: false,
    type: 'button-action',
    id: `click-${user}-${tool}-${Math.random()}`,
    actionId: APPROVE_ACTION,
    value: approvalIdOf(h, tool),
    message: card.ref,
    replyEphemeral: async () => undefined,
  });
}

/** A run that writes notes.txt (alice approves, as she may) and then asks to delete important.txt (she may not approve that alone). */
async function startRun(storeUrl: string, timeoutMs: number) {
  const h = await startCommandHarness({
    channelInfo: SHARED,
    environment: { TSUKA_STORE_URL: storeUrl },
    settings: { approvalTimeoutMs: timeoutMs },
    steps: [callTool('write_file', { path: 'notes.txt', content: 'hello' }, 'w1'), callTool('delete_file', { path: 'important.txt' }, 'd1'), say('Finished.')],
  });
  closers.push(() => h.stop());
  const target = path.join(h.engine.workspace.root, 'important.txt');
  await writeFile(target, 'keep me');
  await h.mention('geordi tidy up', { message: 'root' });
  await h.surface.waitFor(() => liveCard(h, 'write_file') !== undefined);
  const writeId = approvalIdOf(h, 'write_file');
  await click(h, 'write_file', 'playground:alice');
  await h.surface.waitFor(() => liveCard(h, 'delete_file') !== undefined);
  return { h, target, writeId, deleteId: approvalIdOf(h, 'delete_file') };
}

async function expectRefused(h: Harness, target: string) {
  await h.surface.waitFor(() => h.surface.messages.some((message) => message.text.includes('Finished.')));
  await expect(access(target)).resolves.toBeUndefined();
  const deleteCard = cards(h).find((message) => message.text.includes('`delete_file`'))!;
  expect(deleteCard.text).not.toMatch(/Approved by/);
  expect(deleteCard.text).toMatch(/^⛔ Denied — the stored approval was changed outside TSUKA/);
  expect(deleteCard.buttons).toEqual([]);
  const lines: string[] = [];
  const io = { stdout: (text: string) => void lines.push(text), stderr: () => undefined, environment: {}, workingDirectory: os.tmpdir() };
  expect(await runAudit(['--json'], h.engine.config, io)).toBe(0);
  const entries = lines
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(entries).toContainEqual(expect.objectContaining({ type: 'approval', tool: 'delete_file', decision: 'denied', refused: 'tampered' }));
  expect(entries).not.toContainEqual(expect.objectContaining({ tool: 'delete_file', decision: 'approved' }));
}

describe('a real approval copied onto another call', () => {
  it('in SQLite (the default store): copied over the pending delete_file, then read at the timeout — denied, file kept, audited', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-copied-approval-'));
    closers.push(() => rm(home, { recursive: true, force: true }));
    const storeUrl = `sqlite://${path.join(home, 'tsuka.sqlite')}`;
    const { h, target, writeId, deleteId } = await startRun(storeUrl, 3_000);
    // The attacker: another connection to the same database file, without the bot's key.
    const attacker = await openStore({ url: storeUrl, dataDirectory: home });
    closers.push(() => attacker.close());
    const approvals = attacker.namespace<ApprovalRecord>('approvals');
    const approved = (await approvals.get(writeId))!;
    expect(approved.status).toBe('approved');
    await approvals.set(deleteId, approved);
    await expectRefused(h, target);
  });

  it('in Redis: copied over the pending delete_file and published — denied, file kept, audited', async () => {
    const redis = await startRedisServer();
    closers.push(() => redis.stop());
    const { h, target, writeId, deleteId } = await startRun(redis.url, 60_000);
    // The attacker: a plain Redis client (it learnt the address and password somehow), no key.
    const attacker = createClient({ url: redis.url });
    await attacker.connect();
    closers.push(() => attacker.close());
    const [writeKey] = await attacker.keys(`tsuka:kv:*${writeId}`);
    const [deleteKey] = await attacker.keys(`tsuka:kv:*${deleteId}`);
    await attacker.set(deleteKey!, (await attacker.get(writeKey!))!);
    await attacker.publish(`tsuka:topic:approval:${deleteId}`, JSON.stringify({ status: 'approved' }));
    await expectRefused(h, target);
  });
});
