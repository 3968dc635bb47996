/**
 * Runs belong to their channel: from #general, a private channel's run cannot be listed, exported,
 * traced or stopped, and the answer is the one for a run that does not exist. An admin reaches it,
 * alone (the trace as an ephemeral answer, the transcript in a direct message), and the audit log says so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness;
afterEach(async () => {
  await harness?.stop();
});

const GENERAL = 'playground:general';
const PRIVATE = 'playground:sec-private';
const VAULT = 'the vault code is 7741';

async function seed() {
  harness = await startCommandHarness({ settings: { admins: ['playground:root'] } });
  const runs = harness.engine.runs;
  const secret = await runs.create({
    kind: 'ask',
    title: 'rotate the vault',
    startedBy: 'playground:bob',
    where: { platform: 'playground', channelId: PRIVATE },
  });
  await runs.appendEvent(secret.id, { type: 'reasoning', agent: 'worf', text: `Remember: ${VAULT}.` });
  await runs.appendEvent(secret.id, { type: 'tool-result', agent: 'worf', tool: 'read_file', outcome: 'success', display: '1 line', output: VAULT });
  await runs.update(secret.id, (run) => ({ ...run, status: 'completed', endedAt: Date.now() }));
  const running = await runs.create({ kind: 'team', title: 'incident 42', startedBy: 'playground:bob', where: { platform: 'playground', channelId: PRIVATE } });
  const abort = new AbortController();
  // A run in progress that ends when it is stopped (by a command, or by the harness at teardown).
  const done = new Promise<void>((resolve) => abort.signal.addEventListener('abort', () => resolve(), { once: true }));
  harness.layer.activeRuns.register({ runId: running.id, requester: 'playground:bob', abort, done });
  const here = await runs.create({ kind: 'ask', title: 'lint the repo', startedBy: 'playground:alice', where: { platform: 'playground', channelId: GENERAL } });
  return { secret, running, abort, here };
}

/** Nothing of the private runs anywhere the surface shows in #general, nor in the answers. */
function expectNothingOfThePrivateRuns(texts: string[]): void {
  const shown = [...texts, ...harness.surface.messages.map((message) => message.text), ...harness.surface.uploads.map((upload) => upload.content)].join('\n');
  for (const leak of ['vault', '7741', 'incident 42', 'worf']) expect(shown).not.toContain(leak);
}

describe('runs scoped to their channel', () => {
  it('a member in #general cannot list, export, trace or stop a run of the private channel, and learns nothing of it', async () => {
    const { secret, running, abort, here } = await seed();
    const listed = await harness.slash('tsuka', 'runs');
    expect(listed.join('\n')).toContain(here.id);
    expect(listed.join('\n')).not.toContain(secret.id);
    expect(listed.join('\n')).not.toContain(running.id);

    const exported = await harness.slash('tsuka', `export ${secret.id}`);
    const unknown = await harness.slash('tsuka', 'export run-does-not-exist');
    expect(exported).toEqual([`No run ${secret.id} in this channel.`]);
    expect(exported[0]!.replace(secret.id, 'X')).toBe(unknown[0]!.replace('run-does-not-exist', 'X'));
    expect(harness.surface.uploads).toEqual([]);
    expect(harness.surface.directUploads).toEqual([]);

    expect(await harness.slash('tsuka', `trace ${secret.id}`)).toEqual([`No run ${secret.id} in this channel.`]);
    expect(await harness.slash('tsuka', `stop ${running.id}`)).toEqual([`No run ${running.id} is running in this channel.`]);
    expect(abort.signal.aborted).toBe(false);
    // "stop" without a run reaches only the asker's runs of this channel.
    expect(await harness.slash('tsuka', 'stop', { user: 'playground:bob' })).toEqual(['Nothing of yours is running in this channel.']);
    expect(abort.signal.aborted).toBe(false);

    expectNothingOfThePrivateRuns([...listed, ...exported]);
    expect(await harness.engine.audit.list()).toEqual([]);
  });

  it('in its own channel the run is listed, exported and traced as before, and the export is audited', async () => {
    const { secret } = await seed();
    const inPrivate = { channel: PRIVATE, user: 'playground:bob' };
    expect((await harness.slash('tsuka', 'runs', inPrivate)).join('\n')).toContain(secret.id);
    expect(await harness.slash('tsuka', `trace ${secret.id}`, inPrivate)).toEqual([expect.stringContaining('7741')]);
    expect(await harness.slash('tsuka', `export ${secret.id}`, inPrivate)).toEqual([expect.stringMatching(/Uploaded the transcript/)]);
    expect(harness.surface.uploads).toEqual([expect.objectContaining({ channel: PRIVATE, fileName: `${secret.id}.md` })]);
    expect(await harness.engine.audit.list()).toEqual([
      expect.objectContaining({
        type: 'export',
        actor: 'playground:bob',
        runId: secret.id,
        format: 'md',
        where: { platform: 'playground', channelId: PRIVATE },
      }),
    ]);
  });

  it('an admin in #general gets the private trace alone, the transcript in a direct message, may stop the run — each audited', async () => {
    const { secret, running, abort } = await seed();
    const asAdmin = { user: 'playground:root' };
    const trace = await harness.slash('tsuka', `trace ${secret.id}`, asAdmin);
    expect(trace.join('\n')).toContain('7741');
    const exported = await harness.slash('tsuka', `export ${secret.id} json`, asAdmin);
    expect(exported).toEqual([expect.stringMatching(/another channel: its transcript \(JSON\) was sent to you in a direct message/)]);
    expect(harness.surface.directUploads).toEqual([expect.objectContaining({ user: 'playground:root', fileName: `${secret.id}.json` })]);
    expect(harness.surface.directUploads[0]!.content).toContain('7741');
    // Nothing into #general: no upload, no message.
    expect(harness.surface.uploads).toEqual([]);
    expect(harness.surface.messages).toEqual([]);
    expect(await harness.slash('tsuka', `stop ${running.id}`, asAdmin)).toEqual([`Stopping ${running.id}.`]);
    expect(abort.signal.aborted).toBe(true);
    const runWhere = { platform: 'playground', channelId: PRIVATE };
    const where = { platform: 'playground', channelId: GENERAL };
    expect(await harness.engine.audit.list()).toEqual([
      expect.objectContaining({ type: 'admin-action', action: 'trace', actor: 'playground:root', runId: secret.id, where, runWhere }),
      expect.objectContaining({ type: 'admin-action', action: 'export', actor: 'playground:root', runId: secret.id, where, runWhere }),
      expect.objectContaining({ type: 'admin-action', action: 'stop', actor: 'playground:root', runId: running.id, where, runWhere }),
    ]);
  });

  it('an admin on a surface without direct messages is told to export on the host; nothing is posted', async () => {
    const { secret } = await seed();
    delete (harness.surface as { uploadToUser?: unknown }).uploadToUser;
    const answer = await harness.slash('tsuka', `export ${secret.id}`, { user: 'playground:root' });
    expect(answer).toEqual([expect.stringMatching(/cannot send you a direct message.*tsuka export/)]);
    expect(harness.surface.uploads).toEqual([]);
  });
});
