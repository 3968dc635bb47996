import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../../src/core/model/scripted-model.js';
import type { ModelStreamPart } from '../../../src/core/model/language-model.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness;
afterEach(async () => {
  await harness?.stop();
});

/** A step that holds the model stream open until `release` is called. */
function gate(text: string): { step: () => Promise<ModelStreamPart[]>; release: () => void; started: Promise<void> } {
  let release!: () => void;
  let markStarted!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  return {
    step: async () => {
      markStarted();
      await released;
      return say(text);
    },
    release,
    started,
  };
}

const finished = (h: Harness, thread: string, text: string) => () =>
  h.surface.inThread(thread).some((message) => message.text.includes(text) && message.buttons.length === 0);

describe('conversations in threads', () => {
  it('queues a message that arrives while the thread is busy, says so, and answers it next', async () => {
    const first = gate('first answer');
    harness = await startCommandHarness({ steps: [first.step, say('second answer')] });
    await harness.mention('geordi one', { message: 'root' });
    await first.started;
    await harness.threadMessage('thread:root', 'two');
    await harness.surface.waitFor(() => harness.surface.inThread('thread:root').some((message) => /Queued \(1 waiting\)/.test(message.text)));
    first.release();
    await harness.surface.waitFor(finished(harness, 'thread:root', 'second answer'));
    const texts = harness.surface.inThread('thread:root').map((message) => message.text);
    expect(texts.findIndex((text) => text.includes('first answer'))).toBeLessThan(texts.findIndex((text) => text.includes('second answer')));
    expect(harness.model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'two' });
  });

  it('shows its place in the model queue while another thread holds the model', async () => {
    const first = gate('first thread answer');
    harness = await startCommandHarness({ steps: [first.step, say('second thread answer')], queue: 1 });
    await harness.mention('geordi one', { message: 'a' });
    await first.started;
    await harness.mention('spock two', { message: 'b' });
    await harness.surface.waitFor(() => harness.surface.inThread('thread:b').some((message) => /⏳ waiting for the model \(1st in queue\)/.test(message.text)));
    first.release();
    await harness.surface.waitFor(finished(harness, 'thread:b', 'second thread answer'));
    expect(harness.surface.inThread('thread:b')[0]!.text).toBe('second thread answer');
  });

  it('reset clears the session: the next message starts fresh', async () => {
    harness = await startCommandHarness({ steps: [say('remembered'), say('brand new answer')] });
    await harness.mention('spock hello', { message: 'root' });
    await harness.surface.waitFor(finished(harness, 'thread:root', 'remembered'));
    await harness.threadMessage('thread:root', 'reset');
    await harness.surface.waitFor(() => harness.surface.inThread('thread:root').some((message) => /Conversation reset/.test(message.text)));
    await harness.mention('spock again', { message: 'root2', thread: 'thread:root' });
    await harness.surface.waitFor(finished(harness, 'thread:root', 'brand new answer'));
    expect(harness.model.requests[1]!.messages.map((message) => message.content)).not.toContain('remembered');
  });

  it('a reset during a running turn wins: the stopped turn does not save its history back', async () => {
    const held = gate('old answer');
    harness = await startCommandHarness({ steps: [held.step, say('fresh')] });
    await harness.mention('spock secret-word-xyz', { message: 'root' });
    await held.started;
    await harness.threadMessage('thread:root', 'reset');
    await harness.surface.waitFor(() => harness.surface.inThread('thread:root').some((message) => /Conversation reset/.test(message.text)));
    held.release();
    await expect.poll(() => harness.layer.conversations.activeThreads(), { interval: 10 }).toBe(0);
    expect(await harness.engine.sessions.get('thread:root')).toBeUndefined();
  });

  it('the Stop button also drops what was queued behind the stopped turn', async () => {
    const held = gate('never shown');
    harness = await startCommandHarness({ steps: [held.step, say('queued answer must not come')] });
    await harness.mention('geordi long task', { message: 'root' });
    await held.started;
    await harness.threadMessage('thread:root', 'and this too');
    await harness.surface.waitFor(() => harness.surface.inThread('thread:root').some((message) => /Queued/.test(message.text)));
    const reply = harness.surface.inThread('thread:root')[0]!;
    const stop = reply.buttons.find((button) => button.label === 'Stop')!;
    await harness.send({
      type: 'button-action',
      id: 'stop-click',
      platform: 'playground',
      channel: 'playground:general',
      user: 'playground:alice',
      fromBot: false,
      actionId: stop.actionId,
      value: stop.value,
      message: reply.ref,
      thread: 'thread:root',
      replyEphemeral: async () => undefined,
    });
    held.release();
    await harness.surface.waitFor(finished(harness, 'thread:root', '⏹ Stopped by <@playground:alice>.'));
    await expect.poll(() => harness.layer.conversations.activeThreads(), { interval: 10 }).toBe(0);
    expect(harness.model.requests).toHaveLength(1);
  });

  it('a failure after the placeholder ends the reply (no Stop button left) and marks the run failed', async () => {
    harness = await startCommandHarness({ steps: [say('an answer')] });
    harness.engine.sessions.save = async () => {
      throw new Error('store down');
    };
    harness.engine.sessions.update = async () => {
      throw new Error('store down');
    };
    await harness.mention('geordi hi', { message: 'root' });
    await harness.surface.waitFor(() =>
      harness.surface.inThread('thread:root').some((message) => /failed on my side/.test(message.text) && message.buttons.length === 0),
    );
    const [run] = await harness.engine.runs.list({ limit: 1 });
    expect(run!.status).toBe('failed');
  });

  it('only the requester or an admin may stop a turn; the requester can', async () => {
    const held = gate('never shown');
    harness = await startCommandHarness({ steps: [held.step], settings: { admins: ['playground:admin'] } });
    await harness.mention('geordi long task', { message: 'root' });
    await held.started;
    await harness.threadMessage('thread:root', 'stop', { user: 'playground:mallory' });
    await harness.surface.waitFor(() =>
      harness.surface.ephemerals.some((message) => message.user === 'playground:mallory' && /Only the person who asked/.test(message.text)),
    );
    await harness.threadMessage('thread:root', 'stop');
    await harness.surface.waitFor(() => harness.surface.inThread('thread:root').some((message) => /Stopped by <@playground:alice>/.test(message.text)));
    held.release();
    await harness.surface.waitFor(finished(harness, 'thread:root', '⏹ Stopped.'));
  });

  it('tells the user in the thread when the model fails, in one sentence', async () => {
    harness = await startCommandHarness({
      steps: [
        () => {
          throw Object.assign(new Error('The model server at http://127.0.0.1:1/v1 is not reachable.'), { name: 'ModelError' });
        },
      ],
    });
    await harness.mention('geordi hi', { message: 'root' });
    await harness.surface.waitFor(() => harness.surface.inThread('thread:root').some((message) => /⚠️/.test(message.text) && message.buttons.length === 0));
    expect(harness.surface.inThread('thread:root')[0]!.text).toMatch(/not reachable|went wrong|failed/);
  });

  it('never posts reasoning as reply text', async () => {
    harness = await startCommandHarness({
      steps: [
        [
          { type: 'reasoning-delta', text: 'SECRET CHAIN OF THOUGHT' },
          { type: 'text-delta', text: 'Visible answer.' },
          { type: 'finish', reason: 'stop' },
        ],
      ],
    });
    await harness.mention('geordi think first', { message: 'root' });
    await harness.surface.waitFor(finished(harness, 'thread:root', 'Visible answer.'));
    const everything = harness.surface.messages.flatMap((message) => message.history).join('\n');
    expect(everything).not.toContain('SECRET CHAIN OF THOUGHT');
  });
});

describe('model tier', () => {
  it('TSUKA_LLM_TIER wins over the name: a SMALL tier is not offered MEDIUM tools', async () => {
    harness = await startCommandHarness({ steps: [say('ok')], modelId: 'research-model-70b', environment: { TSUKA_LLM_TIER: 'SMALL' } });
    await harness.mention('spock look it up', { message: 'root' });
    await harness.surface.waitFor(finished(harness, 'thread:root', 'ok'));
    const offered = (harness.model.requests[0]!.tools ?? []).map((tool) => tool.name);
    expect(offered).toContain('read_file');
    expect(offered).not.toContain('web_search');
  });

  it('without it the tier comes from the name (70b: LARGE, web tools offered)', async () => {
    harness = await startCommandHarness({ steps: [say('ok')], modelId: 'research-model-70b' });
    await harness.mention('spock look it up', { message: 'root' });
    await harness.surface.waitFor(finished(harness, 'thread:root', 'ok'));
    expect((harness.model.requests[0]!.tools ?? []).map((tool) => tool.name)).toContain('web_search');
  });
});

describe('what is stored', () => {
  it('masks secret values in the saved session and the run log, even ones a user pasted', async () => {
    harness = await startCommandHarness({ steps: [say('Noted.'), say('Still noted.')], environment: { DEPLOY_TOKEN: 'tok-0123456789abcdef' } });
    await harness.mention('geordi the deploy token is tok-0123456789abcdef', { message: 'root' });
    await harness.surface.waitFor(finished(harness, 'thread:root', 'Noted.'));
    const session = await harness.engine.sessions.get('thread:root');
    expect(JSON.stringify(session)).not.toContain('tok-0123456789abcdef');
    expect(JSON.stringify(session)).toContain('[secret masked]');
    // A follow-up turn masks its own new messages (the stored ones were masked already).
    await harness.threadMessage('thread:root', 'once more: tok-0123456789abcdef');
    await harness.surface.waitFor(finished(harness, 'thread:root', 'Still noted.'));
    const followed = await harness.engine.sessions.get('thread:root');
    expect(followed!.history.length).toBeGreaterThan(session!.history.length);
    expect(JSON.stringify(followed)).not.toContain('tok-0123456789abcdef');
    const [run] = await harness.engine.runs.list({ limit: 1 });
    expect(JSON.stringify(await harness.engine.runs.events(run!.id))).not.toContain('tok-0123456789abcdef');
  });
});

describe('middleware', () => {
  it('serves only allowlisted channels; a slash command elsewhere is told why', async () => {
    harness = await startCommandHarness({ steps: [say('allowed')], settings: { channels: ['general'] } });
    await harness.mention('geordi hi', { message: 'elsewhere', channel: 'playground:random' });
    const replies = await harness.slash('tsuka', 'help', { channel: 'playground:random' });
    expect(replies[0]).toMatch(/not enabled in this channel/);
    await harness.mention('geordi hi', { message: 'root' });
    await harness.surface.waitFor(finished(harness, 'thread:root', 'allowed'));
    expect(harness.model.requests).toHaveLength(1);
  });

  it('limits each user to their per-minute budget and says when to retry', async () => {
    harness = await startCommandHarness({ settings: { userEventsPerMinute: 3 } });
    for (let index = 0; index < 3; index++) expect(await harness.slash('tsuka', 'help')).toHaveLength(1);
    const limited = await harness.slash('tsuka', 'help');
    expect(limited[0]).toMatch(/faster than 3 a minute; try again in \d+ s/);
    expect(await harness.slash('tsuka', 'help', { user: 'playground:bob' })).toHaveLength(1);
  });

  it('takes the per-user budget from TSUKA_USER_EVENTS_PER_MINUTE', async () => {
    harness = await startCommandHarness({ environment: { TSUKA_USER_EVENTS_PER_MINUTE: '2' } });
    for (let index = 0; index < 2; index++) expect(await harness.slash('tsuka', 'help')).toHaveLength(1);
    expect((await harness.slash('tsuka', 'help'))[0]).toMatch(/faster than 2 a minute/);
  });

  it('drops a duplicate delivery of the same event id', async () => {
    harness = await startCommandHarness();
    const replies: string[] = [];
    const event = {
      type: 'slash-command' as const,
      id: 'same-id',
      platform: 'playground' as const,
      channel: 'playground:general',
      user: 'playground:alice',
      fromBot: false,
      command: 'tsuka' as const,
      text: 'help',
      reply: async (text: string) => void replies.push(text),
    };
    await harness.send(event);
    await harness.send(event);
    expect(replies).toHaveLength(1);
  });

  it('answers a failure below it with one sentence and logs the stack', async () => {
    harness = await startCommandHarness();
    const replies = await harness.slash('tsuka', 'forget', {
      reply: async (text) => {
        if (!text.startsWith('⚠️')) throw new Error('platform hiccup');
        replies.push(text);
      },
    });
    expect(replies).toEqual([]);
    expect(harness.logger.entries.some((entry) => entry.level === 'error' && entry.message === 'event failed')).toBe(true);
  });
});

describe('an unknown character name', () => {
  it('is answered by the default character, with a one-line notice from TSUKA saying who answered and where the list is', async () => {
    harness = await startCommandHarness({ steps: [say('hello from geordi')] });
    await harness.mention('@picard hello there', { message: 'root' });
    await harness.surface.waitFor(finished(harness, 'thread:root', 'hello from geordi'));
    const thread = harness.surface.inThread('thread:root');
    const notice = thread.find((message) => message.text.includes('no character "picard"'));
    expect(notice?.text).toBe('ℹ️ There is no character "picard": Geordi answers instead. `/tsuka characters` lists who is here.');
    expect(notice?.identity).toBeUndefined();
    // The name is not passed on as part of the question.
    expect(harness.model.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'hello there' });
  });

  it('an ordinary first word is not taken for a name', async () => {
    harness = await startCommandHarness({ steps: [say('hi')] });
    await harness.mention('hello there', { message: 'root' });
    await harness.surface.waitFor(finished(harness, 'thread:root', 'hi'));
    expect(harness.surface.inThread('thread:root').some((message) => message.text.includes('no character'))).toBe(false);
  });
});
