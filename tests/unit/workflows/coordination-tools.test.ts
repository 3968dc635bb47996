import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadToolSchemas } from '../../../src/core/tools/tool-schema-loader.js';
import { createToolRegistry } from '../../../src/core/tools/create-tool-registry.js';
import { coordinationToolImplementations } from '../../../src/core/tools/impl/coordination-tools.js';
import type { ToolRegistry, ToolSchema } from '../../../src/core/tools/tool.js';
import { createBlackboard } from '../../../src/core/workflows/blackboard.js';
import { createMemberInbox } from '../../../src/core/workflows/member-inbox.js';
import type { EscalationRequest, StatusReport, WorkflowToolService } from '../../../src/core/workflows/workflow-services.js';
import { createTestToolContext, type TestToolContext } from '../tools/tool-test-context.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';

let schemas: Map<string, ToolSchema>;
let registry: ToolRegistry;
let test: TestToolContext | undefined;
beforeAll(async () => {
  const all = await loadToolSchemas(path.join(PACKAGE_ROOT, 'tools_schemas'));
  const implementations = coordinationToolImplementations();
  schemas = new Map([...all].filter(([name]) => implementations.some((tool) => tool.name === name)));
  registry = createToolRegistry({ schemas, implementations });
});
afterEach(async () => {
  await test?.cleanup();
  test = undefined;
});

function service(overrides: Partial<WorkflowToolService> = {}): WorkflowToolService & { reports: StatusReport[] } {
  const reports: StatusReport[] = [];
  return {
    runId: 'run-a',
    depth: 0,
    blackboard: createBlackboard(),
    inbox: createMemberInbox(),
    members: ['geordi', 'worf'],
    reportStatus: (report) => reports.push(report),
    routeNext: () => undefined,
    castVote: () => undefined,
    reports,
    ...overrides,
  };
}

async function run(name: string, input: Record<string, unknown>, services: Record<string, unknown>) {
  test ??= await createTestToolContext();
  const context = { ...test.context, services };
  return registry.execute(name, registry.validate(name, input), context);
}

describe('coordination tools', () => {
  it('has a schema for each implementation with the exact parameters', () => {
    expect([...schemas.keys()].sort()).toEqual([
      'cast_vote',
      'post_note',
      'read_notes',
      'record_decision',
      'report_status',
      'request_call',
      'request_goal',
      'request_team',
      'route_next',
      'send_message',
      'spawn_agent',
    ]);
    expect(() => registry.validate('report_status', { status: 'COMPLETATO', summary: 'x' })).toThrow(/status/);
    expect(() => registry.validate('cast_vote', { vote: 'APPROVO', reason: 'x' })).toThrow(/vote/);
    expect(schemas.get('request_goal')!.riskLevel).toBe('RESTRICTED');
  });

  it("keeps each run's blackboard to its own members", async () => {
    const runA = service();
    const runB = service({ runId: 'run-b' });
    await run('post_note', { key: 'decision/storage', value: 'use sqlite' }, { workflow: runA });
    const inA = await run('read_notes', { prefix: 'decision/' }, { workflow: runA });
    const inB = await run('read_notes', {}, { workflow: runB });
    expect(inA.output).toContain('[decision/storage] (geordi) use sqlite');
    expect(inB.output).toBe('The blackboard is empty.');
  });

  it('records report_status in the member sink, and outside a workflow keeps it as the closing summary', async () => {
    const workflow = service();
    await run('report_status', { status: 'FAILED', summary: 'tests broke', next_hint: 'worf' }, { workflow });
    expect(workflow.reports).toEqual([{ status: 'FAILED', summary: 'tests broke', nextHint: 'worf' }]);
    const plain = await run('report_status', { status: 'COMPLETED', summary: 'fixed the build' }, {});
    expect(plain.isError).toBeUndefined();
    expect(plain.output).toContain('Closing summary recorded (COMPLETED): fixed the build');
  });

  it('delivers send_message only to members of the run', async () => {
    const workflow = service();
    expect(await run('send_message', { target: '@Worf', content: 'check auth.ts' }, { workflow })).toMatchObject({ display: '→ worf' });
    expect(workflow.inbox.take('worf')).toEqual([{ from: 'geordi', content: 'check auth.ts' }]);
    expect(await run('send_message', { target: 'spock', content: 'hi' }, { workflow })).toMatchObject({ isError: true });
  });

  it('refuses spawn_agent at the depth limit', async () => {
    const spawned: string[] = [];
    const spawn = async (request: { task: string }) => {
      spawned.push(request.task);
      return 'report';
    };
    expect(await run('spawn_agent', { task: 'look' }, { workflow: service({ depth: 1, spawn }) })).toMatchObject({ output: 'report' });
    expect(await run('spawn_agent', { task: 'deeper' }, { workflow: service({ depth: 2, spawn }) })).toMatchObject({ isError: true, display: 'depth limit' });
    expect(spawned).toEqual(['look']);
  });

  it('refuses request_* inside a workflow and starts the run through the escalation service outside', async () => {
    const started: EscalationRequest[] = [];
    const escalation = { start: async (request: EscalationRequest) => (started.push(request), 'Started in a new thread.') };
    const inside = await run('request_team', { team: 'qa_pipeline', task: 'x', reason: 'y' }, { workflow: service(), escalation });
    expect(inside).toMatchObject({ isError: true, display: 'refused inside a workflow' });
    const outside = await run('request_call', { participants: ['spock', 'worf'], topic: 'cache?', reason: 'needs debate' }, { escalation });
    expect(outside.output).toBe('Started in a new thread.');
    expect(await run('request_goal', { objective: 'x', reason: 'y' }, {})).toMatchObject({ isError: true, display: 'unavailable' });
    expect(started).toEqual([{ kind: 'call', participants: ['spock', 'worf'], topic: 'cache?', reason: 'needs debate' }]);
  });
});
