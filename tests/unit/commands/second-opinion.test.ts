/**
 * Issue 28, "a second opinion in one click", below the platforms: the menus a finished reply
 * carries, the choices read back (as untrusted input), the context the character asked gets, how
 * Slack and Discord draw the menus, and a Re-run on another model server.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { componentsFor } from '../../../src/adapters/discord/cards.js';
import { blocksFor, parseOptionValue } from '../../../src/adapters/slack/cards.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';
import { SECOND_ASK_ACTION, SECOND_RERUN_ACTION } from '../../../src/commands/action-ids.js';
import type { Button } from '../../../src/commands/chat-surface.js';
import { parseSecondOpinionChoice, secondOpinionMenus } from '../../../src/commands/second-opinion/second-opinion-menu.js';
import { SECOND_OPINION_LIMITS, secondOpinionPrompt, transcriptOfRun } from '../../../src/commands/second-opinion/second-opinion-prompt.js';
import { loadRoster } from '../../../src/core/data/load-roster.js';
import type { Roster } from '../../../src/core/data/types.js';
import { createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { RunEvent } from '../../../src/core/store/run-types.js';
import { loadToolSchemas } from '../../../src/core/tools/tool-schema-loader.js';
import { WORKFLOW_TOOL_NAMES } from '../../../src/core/tools/workflow-tool-names.js';
import { startCommandHarness } from '../../support/command-harness.js';

let roster: Roster;
beforeAll(async () => {
  const schemas = await loadToolSchemas(`${PACKAGE_ROOT}/tools_schemas`);
  roster = await loadRoster({ rootDirectory: PACKAGE_ROOT, knownTools: new Set([...schemas.keys(), ...WORKFLOW_TOOL_NAMES]) });
});

const labels = (menu: Button | undefined) => (menu?.options ?? []).map((option) => option.label);

describe('the second-opinion menus', () => {
  it('offers every other character the channel allows, a plain re-run, and the servers only when there are several', () => {
    const geordi = roster.characters.get('geordi')!;
    const [ask, rerun] = secondOpinionMenus({ runId: 'r1', character: geordi, roster, allowed: ['geordi', 'worf', 'spock'] });
    expect(ask).toMatchObject({ actionId: SECOND_ASK_ACTION, value: 'r1', label: 'Ask another character…' });
    expect(labels(ask)).toEqual(['Ask Spock', 'Ask Worf']);
    expect(labels(rerun)).toEqual(['Re-run (Geordi)', 'Re-run as Spock', 'Re-run as Worf']);
    const servers = secondOpinionMenus({
      runId: 'r1',
      character: geordi,
      roster,
      allowed: ['geordi'],
      servers: ['http://10.0.0.5:8080/v1', 'http://10.0.0.6:8080/v1'],
    });
    // Nobody else to ask: only the Re-run menu, with each server.
    expect(servers.map((menu) => menu.actionId)).toEqual([SECOND_RERUN_ACTION]);
    expect(servers[0]!.options).toEqual([
      { label: 'Re-run (Geordi)', choice: 'rerun' },
      { label: 'Re-run on 10.0.0.5:8080', choice: 'rerun@1' },
      { label: 'Re-run on 10.0.0.6:8080', choice: 'rerun@2' },
    ]);
    expect(labels(secondOpinionMenus({ runId: 'r1', character: geordi, roster, servers: ['http://only:1/v1'] })[1])).not.toContain('Re-run on only:1');
  });

  it('never offers more than 25 options (Discord’s limit), however large the roster', () => {
    const many = new Map(roster.characters);
    for (let index = 0; index < 40; index++) many.set(`extra${index}`, { ...roster.characters.get('data')!, name: `extra${index}`, aiName: `Extra${index}` });
    for (const menu of secondOpinionMenus({ runId: 'r1', character: roster.characters.get('geordi')!, roster: { ...roster, characters: many } }))
      expect(menu.options!.length).toBeLessThanOrEqual(25);
  });

  it('reads back only choices of the shape it offers (a choice is untrusted input)', () => {
    expect(parseSecondOpinionChoice(SECOND_ASK_ACTION, 'ask:worf')).toEqual({ kind: 'ask', character: 'worf' });
    expect(parseSecondOpinionChoice(SECOND_RERUN_ACTION, 'rerun')).toEqual({ kind: 'rerun' });
    expect(parseSecondOpinionChoice(SECOND_RERUN_ACTION, 'rerun:spock')).toEqual({ kind: 'rerun', character: 'spock' });
    expect(parseSecondOpinionChoice(SECOND_RERUN_ACTION, 'rerun@2')).toEqual({ kind: 'rerun', server: 2 });
    for (const [action, choice] of [
      [SECOND_ASK_ACTION, undefined],
      [SECOND_ASK_ACTION, 'rerun'],
      [SECOND_RERUN_ACTION, 'ask:worf'],
      [SECOND_ASK_ACTION, 'ask:../../etc'],
      [SECOND_RERUN_ACTION, 'rerun@0'],
      [SECOND_RERUN_ACTION, 'rerun@http://evil'],
      ['tsuka_approve', 'ask:worf'],
    ] as const)
      expect(parseSecondOpinionChoice(action, choice)).toBeUndefined();
  });
});

describe('the context a second opinion gets', () => {
  const at = { at: 0 };
  const events: RunEvent[] = [
    { seq: 1, ...at, type: 'message', agent: 'Alice', text: 'which port does the service use?' },
    {
      seq: 2,
      ...at,
      type: 'tool-call',
      agent: 'geordi',
      tool: 'read_file',
      summary: 'read_file service.json',
      callId: 'c1',
      arguments: '{"path":"service.json"}',
    },
    { seq: 3, ...at, type: 'tool-result', agent: 'geordi', tool: 'read_file', outcome: 'success', display: '16 B', output: '{ "port": 8417 }', callId: 'c1' },
    { seq: 4, ...at, type: 'reasoning', agent: 'geordi', text: 'private thoughts' },
    { seq: 5, ...at, type: 'message', agent: 'geordi', text: 'Port 8417.' },
    { seq: 6, ...at, type: 'tool-result', agent: 'geordi', tool: 'execute_command', outcome: 'success', display: 'exit 0', output: 'x'.repeat(5000) },
  ];

  it('holds the request, the reply, each tool call with its result — never the reasoning — and cuts long results', () => {
    const prompt = secondOpinionPrompt({ transcript: transcriptOfRun(events, 'geordi'), answeredBy: { name: 'geordi', aiName: 'Geordi' }, askedBy: 'Bob' });
    expect(prompt).toContain("Bob asks for your second opinion on Geordi's reply");
    expect(prompt).toContain('## The original request (from Alice)\nwhich port does the service use?');
    expect(prompt).toContain("## Geordi's reply\nPort 8417.");
    expect(prompt).toContain('- read_file {"path":"service.json"} → success:\n{ "port": 8417 }');
    expect(prompt).toContain(`x`.repeat(SECOND_OPINION_LIMITS.toolOutput));
    expect(prompt).not.toContain(`x`.repeat(SECOND_OPINION_LIMITS.toolOutput + 1));
    expect(prompt).toContain('(cut: 3000 more characters)');
    expect(prompt).not.toContain('private thoughts');
  });
});

describe('the menus on each platform', () => {
  const menu: Button = {
    actionId: SECOND_ASK_ACTION,
    label: 'Ask another character…',
    style: 'secondary',
    value: 'run-1',
    options: [{ label: 'Ask Worf', choice: 'ask:worf' }],
  };

  it('Slack: a static_select after the buttons, each option carrying value|choice', () => {
    const blocks = blocksFor('Reply.', [{ actionId: 'tsuka_stop', label: 'Stop', style: 'secondary', value: 'run-1' }, menu])!;
    const elements = (blocks.at(-1) as { elements: Record<string, unknown>[] }).elements;
    expect(elements.map((element) => element.type)).toEqual(['button', 'static_select']);
    expect(elements[1]).toMatchObject({
      action_id: SECOND_ASK_ACTION,
      placeholder: { text: 'Ask another character…' },
      options: [{ text: { text: 'Ask Worf' }, value: 'run-1|ask:worf' }],
    });
    expect(parseOptionValue('run-1|ask:worf')).toEqual({ value: 'run-1', choice: 'ask:worf' });
  });

  it('Discord: a string select alone in its row, custom_id actionId:value, options valued by their choice', () => {
    const rows = componentsFor([{ actionId: 'tsuka_stop', label: 'Stop', style: 'secondary', value: 'run-1' }, menu]);
    expect(rows).toHaveLength(2);
    expect(rows[1]!.components).toEqual([
      { type: 3, custom_id: `${SECOND_ASK_ACTION}:run-1`, placeholder: 'Ask another character…', options: [{ label: 'Ask Worf', value: 'ask:worf' }] },
    ]);
  });
});

describe('Re-run on another model server', () => {
  let harness: Awaited<ReturnType<typeof startCommandHarness>> | undefined;
  afterEach(async () => {
    await harness?.stop();
    harness = undefined;
  });

  it('answers the same request with the model of the server picked, and refuses a server that is not configured', async () => {
    const second = createScriptedModel([say('Answer from the second server.')], { modelId: 'scripted' });
    const servers = ['http://gpu-a:8080/v1', 'http://gpu-b:8080/v1'];
    harness = await startCommandHarness({
      steps: [say('Answer from the queue.')],
      models: (control) => ({
        ...control,
        serverUrls: () => servers,
        currentOn: (server) => (server === servers[1] ? { ...control.current()!, model: second } : undefined),
      }),
    });
    const h = harness;
    await h.mention('geordi how many shards?', { message: 'root' });
    await h.surface.waitFor(() => h.surface.inThread('thread:root').some((message) => message.menus.length > 0));
    const reply = h.surface.inThread('thread:root').find((message) => message.menus.length > 0)!;
    const rerun = reply.menus.find((menu) => menu.actionId === SECOND_RERUN_ACTION)!;
    expect(rerun.options!.map((option) => option.choice)).toContain('rerun@2');
    const click = (choice: string) =>
      h.send({
        type: 'button-action',
        id: `click-${choice}`,
        platform: 'playground',
        channel: 'playground:general',
        user: 'playground:bob',
        fromBot: false,
        actionId: SECOND_RERUN_ACTION,
        value: rerun.value,
        choice,
        message: reply.ref,
        thread: 'thread:root',
        replyEphemeral: async (text) => void h.surface.ephemerals.push({ user: 'playground:bob', text }),
      });
    await click('rerun@7');
    expect(h.surface.ephemerals.at(-1)?.text).toMatch(/not configured/);
    await click('rerun@2');
    await h.surface.waitFor(() =>
      h.surface.inThread('thread:root').some((message) => message.text.includes('Answer from the second server.') && message.buttons.length === 0),
    );
    expect(h.surface.inThread('thread:root').some((message) => /re-runs the request on gpu-b:8080/.test(message.text))).toBe(true);
    expect(second.requests).toHaveLength(1);
    expect(second.requests[0]!.messages.at(-1)!.content).toContain('how many shards?');
    // The re-run started from the history before the first answer.
    expect(JSON.stringify(second.requests[0]!.messages)).not.toContain('Answer from the queue.');
  });

  it('picks in the menus count against the per-user rate limit, as messages do (the mention took one)', async () => {
    harness = await startCommandHarness({ steps: [say('First.')], settings: { userEventsPerMinute: 3 } });
    const h = harness;
    await h.mention('geordi one', { message: 'root' });
    await h.surface.waitFor(() => h.surface.inThread('thread:root').some((message) => message.menus.length > 0));
    const reply = h.surface.inThread('thread:root').find((message) => message.menus.length > 0)!;
    const pickBad = (id: string) =>
      h.send({
        type: 'button-action',
        id,
        platform: 'playground',
        channel: 'playground:general',
        user: 'playground:alice',
        fromBot: false,
        actionId: SECOND_ASK_ACTION,
        value: reply.menus[0]!.value,
        choice: 'ask:nobody',
        message: reply.ref,
        thread: 'thread:root',
        replyEphemeral: async (text) => void h.surface.ephemerals.push({ user: 'playground:alice', text }),
      });
    await pickBad('p1');
    await pickBad('p2');
    expect(h.surface.ephemerals.at(-1)?.text).toMatch(/no character "nobody"/);
    await pickBad('p3');
    expect(h.surface.ephemerals.at(-1)?.text).toMatch(/faster than 3 a minute/);
  });

  it('a menu of another thread’s run does nothing in this one', async () => {
    harness = await startCommandHarness({ steps: [say('First.'), say('Other.')] });
    const h = harness;
    await h.mention('geordi one', { message: 'root' });
    await h.mention('geordi two', { message: 'other' });
    await h.surface.waitFor(() => ['thread:root', 'thread:other'].every((thread) => h.surface.inThread(thread).some((message) => message.menus.length > 0)));
    const foreign = h.surface.inThread('thread:other').find((message) => message.menus.length > 0)!;
    await h.send({
      type: 'button-action',
      id: 'cross',
      platform: 'playground',
      channel: 'playground:general',
      user: 'playground:alice',
      fromBot: false,
      actionId: SECOND_ASK_ACTION,
      value: foreign.menus[0]!.value,
      choice: 'ask:worf',
      message: 'msg:1',
      thread: 'thread:root',
      replyEphemeral: async (text) => void h.surface.ephemerals.push({ user: 'playground:alice', text }),
    });
    expect(h.surface.ephemerals.at(-1)?.text).toMatch(/not available here/);
    expect(h.model.requests).toHaveLength(2);
  });
});
