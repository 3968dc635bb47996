import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { loadRoster } from '../../../src/core/data/load-roster.js';
import type { Roster } from '../../../src/core/data/types.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import { createPermissionManager } from '../../../src/core/safety/permission-manager.js';
import { createToolRegistry } from '../../../src/core/tools/create-tool-registry.js';
import { coordinationToolImplementations } from '../../../src/core/tools/impl/coordination-tools.js';
import { loadToolSchemas } from '../../../src/core/tools/tool-schema-loader.js';
import { WORKFLOW_TOOL_NAMES } from '../../../src/core/tools/workflow-tool-names.js';
import { createBlackboard } from '../../../src/core/workflows/blackboard.js';
import { createMemberInbox } from '../../../src/core/workflows/member-inbox.js';
import { createSubAgentSpawner } from '../../../src/core/workflows/sub-agent.js';
import { workflowServiceOf, type WorkflowToolService } from '../../../src/core/workflows/workflow-services.js';
import type { ToolContext } from '../../../src/core/tools/tool.js';
import { createTestToolContext, type TestToolContext } from '../tools/tool-test-context.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';

let roster: Roster;
let test: TestToolContext | undefined;
beforeAll(async () => {
  const schemas = await loadToolSchemas(path.join(PACKAGE_ROOT, 'tools_schemas'));
  roster = await loadRoster({ rootDirectory: PACKAGE_ROOT, knownTools: new Set([...schemas.keys(), ...WORKFLOW_TOOL_NAMES]) });
});
afterEach(async () => {
  await test?.cleanup();
  test = undefined;
});

describe('createSubAgentSpawner', () => {
  it('runs an isolated sub-agent one level deeper with the asked role, stores its report, and refuses past the depth limit', async () => {
    test = await createTestToolContext();
    const schemas = await loadToolSchemas(path.join(PACKAGE_ROOT, 'tools_schemas'));
    const implementations = coordinationToolImplementations();
    const tools = createToolRegistry({
      schemas: new Map([...schemas].filter(([name]) => implementations.some((tool) => tool.name === name))),
      implementations,
    });
    const model = createScriptedModel([say('Found two TODOs in src/.')]);
    const runner = createAgentRunner({ model, tools, permissions: createPermissionManager() });
    const depths: number[] = [];
    const reports: [string, string][] = [];
    const serviceFor = (depth: number): WorkflowToolService => {
      depths.push(depth);
      return {
        runId: 'run-1',
        depth,
        blackboard: createBlackboard(),
        inbox: createMemberInbox(),
        members: [],
        reportStatus: () => undefined,
        routeNext: () => undefined,
        castVote: () => undefined,
      };
    };
    const spawn = createSubAgentSpawner({
      runner,
      roster,
      runId: 'run-1',
      memoryScope: test.root,
      toolContext: {
        workspace: test.context.workspace,
        childEnv: test.context.childEnv,
        sandbox: test.context.sandbox,
        maskSecrets: test.context.maskSecrets,
        logger: test.context.logger,
      },
      serviceFor,
      onReport: async (agent, report) => void reports.push([agent, report]),
    });
    const report = await spawn(
      { task: 'count the TODOs', roleName: 'researcher' },
      { ...test.context, agentName: 'geordi', services: { workflow: serviceFor(0) } },
    );
    expect(report).toBe('Found two TODOs in src/.');
    expect(depths).toEqual([0, 1]);
    expect(reports).toEqual([['geordi (sub-agent of geordi, depth 1)', 'Found two TODOs in src/.']]);
    // Isolated: the sub-agent saw only its task, under the requested role.
    const request = model.requests[0]!;
    expect(request.messages.filter((message) => message.role !== 'system')).toHaveLength(1);
    expect(request.messages.at(-1)!.content).toContain('Sub-task from geordi: count the TODOs');
    expect(request.messages[0]!.content).toContain(roster.roles.get('researcher')!.systemPrompt.slice(0, 40));
    await expect(spawn({ task: 'deeper' }, { ...test.context, agentName: 'geordi', services: { workflow: serviceFor(2) } })).rejects.toThrow(/at most 2 deep/);
    await expect(spawn({ task: 'x', charName: 'nobody' }, { ...test.context, services: {} })).rejects.toThrow(/No character "nobody"/);
  });

  it("never offers a sub-agent a tool its spawner's role lacks, however broad the asked role, and passes the cap on", async () => {
    test = await createTestToolContext();
    const schemas = await loadToolSchemas(path.join(PACKAGE_ROOT, 'tools_schemas'));
    const coordination = coordinationToolImplementations();
    // Every tool known, so that only the roles decide what is offered.
    const ceilingsSeen: (readonly string[] | undefined)[] = [];
    const stubs = [...schemas.keys()]
      .filter((name) => !coordination.some((tool) => tool.name === name))
      .map((name) => ({
        name,
        preview: () => ({ summary: name }),
        execute: async (_input: unknown, context: ToolContext) => {
          ceilingsSeen.push(workflowServiceOf(context)?.toolCeiling);
          return { output: 'ok' };
        },
      }));
    const tools = createToolRegistry({ schemas, implementations: [...coordination, ...stubs] });
    const model = createScriptedModel([callTool('read_file', { path: 'README.md' }), say('Read the layout.'), say('Listed it.')]);
    const runner = createAgentRunner({ model, tools, permissions: createPermissionManager() });
    const serviceFor = (depth: number): WorkflowToolService => ({
      runId: 'run-1',
      depth,
      blackboard: createBlackboard(),
      inbox: createMemberInbox(),
      members: [],
      reportStatus: () => undefined,
      routeNext: () => undefined,
      castVote: () => undefined,
    });
    const spawn = createSubAgentSpawner({
      runner,
      roster,
      runId: 'run-1',
      memoryScope: test.root,
      toolContext: {
        workspace: test.context.workspace,
        childEnv: test.context.childEnv,
        sandbox: test.context.sandbox,
        maskSecrets: test.context.maskSecrets,
        logger: test.context.logger,
      },
      serviceFor,
      onReport: async () => undefined,
    });
    const offered = (index: number) => (model.requests[index]!.tools ?? []).map((tool) => tool.name);
    const architect = new Set(roster.roles.get('architect')!.allowedTools);
    expect(architect.has('execute_command')).toBe(false);
    expect(roster.roles.get('developer')!.coreTools).toContain('execute_command');

    // Una is an architect: a "developer" sub-agent of hers gets the developer's tools that architects have too.
    await spawn({ task: 'check the layout', roleName: 'developer' }, { ...test.context, agentName: 'una', services: { workflow: serviceFor(0) } });
    expect(offered(0)).toContain('read_file');
    expect(offered(0)).toContain('write_file');
    expect(offered(0)).not.toContain('execute_command');
    expect(offered(0).every((name) => architect.has(name))).toBe(true);
    // Its own sub-agents inherit the cap it was given, not its role's.
    const ceiling = ceilingsSeen[0];
    expect(ceiling).toBeDefined();
    expect(ceiling).not.toContain('execute_command');
    expect(ceiling).toContain('read_file');

    await spawn(
      { task: 'list the files', roleName: 'devops_engineer' },
      { ...test.context, agentName: 'geordi', services: { workflow: { ...serviceFor(1), toolCeiling: ['list_dir'] } } },
    );
    expect(offered(2).filter((name) => name !== 'load_tools')).toEqual(['list_dir']);
  });
});
