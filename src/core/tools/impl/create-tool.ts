import { Ajv } from 'ajv';
import { knownToolNames } from '../agent-control.js';
import { writeFileBeneath } from '../atomic-write.js';
import type { ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { displayPath } from '../workspace-paths.js';
import { createdToolCatalogOf } from '../created-tools.js';
import { MCP_TOOL_PREFIX } from '../mcp/mcp-tool-name.js';

export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{1,31}$/;
/** Where proposed tools are written, relative to the workspace root. */
export const CUSTOM_TOOLS_FOLDER = '.tsuka/tools';
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export type CreateToolInput = { name: string; description: string; parameters: Record<string, unknown>; command: string };

/**
 * `create_tool` — OFF by default (`enableCreateTool`). It validates a command-template tool, keeps
 * it in `<workspace>/.tsuka/tools/<name>.json` and — where the runner offers the created-tools
 * catalogue (`services.createdTools`) — registers it at once and loads it for the rest of the run.
 * Any tool made this way is DANGEROUS: every call asks a person.
 */
export const createToolTool: ToolImplementation<CreateToolInput> = {
  name: 'create_tool',

  preview: (input) => ({
    summary: `create_tool ${input.name}`,
    details: [
      `tool: ${input.name} — ${input.description}`,
      `command template: ${input.command}`,
      `parameters: ${Object.keys(asRecord(input.parameters.properties)).join(', ') || '(none)'}`,
      `writes: ${CUSTOM_TOOLS_FOLDER}/${input.name}.json`,
    ],
  }),

  async execute(input, context) {
    const problems: string[] = [];
    if (!TOOL_NAME_PATTERN.test(input.name)) problems.push(`name "${input.name}" must match ${TOOL_NAME_PATTERN.source}`);
    if (knownToolNames(context)?.includes(input.name)) problems.push(`a tool named "${input.name}" already exists`);
    if (input.name.startsWith(MCP_TOOL_PREFIX)) problems.push(`names starting with ${MCP_TOOL_PREFIX} are kept for the tools of MCP servers`);
    if (input.description.trim() === '') problems.push('description is empty');
    if (input.parameters.type !== 'object') problems.push('parameters must be a JSON Schema with type "object"');
    try {
      new Ajv({ strict: false }).compile(input.parameters);
    } catch (error) {
      problems.push(`parameters is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
    }
    const declared = Object.keys(asRecord(input.parameters.properties));
    const used = [...input.command.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
    const undeclared = [...new Set(used.filter((name) => !declared.includes(name)))];
    if (input.command.trim() === '') problems.push('command is empty');
    if (undeclared.length > 0) problems.push(`the command uses undeclared parameters: ${undeclared.join(', ')}`);
    if (problems.length > 0) throw new ToolFailureError(`The tool was not created: ${problems.join('; ')}.`);

    const catalog = createdToolCatalogOf(context.services);
    if (catalog) {
      await catalog.add({
        name: input.name,
        description: input.description.trim(),
        parameters: input.parameters,
        command: input.command,
        createdBy: context.agentName,
        createdAt: new Date().toISOString(),
      });
      const agent = context.services.agent as { loadTools?: (names: string[]) => unknown } | undefined;
      agent?.loadTools?.([input.name]);
      return {
        output:
          `Created the tool ${input.name}: you can call it from your next step, and it is kept for this workspace. ` +
          'Every call of it is DANGEROUS (a person approves each one). Placeholders {{name}} are filled from its arguments, single-quoted.',
        display: `${CUSTOM_TOOLS_FOLDER}/${input.name}.json`,
      };
    }
    const absolutePath = await context.workspace.resolve(`${CUSTOM_TOOLS_FOLDER}/${input.name}.json`);
    const definition = {
      name: input.name,
      description: input.description.trim(),
      parameters: input.parameters,
      command: input.command,
      riskLevel: 'DANGEROUS',
      requiredTier: 'LARGE',
      createdBy: context.agentName,
      createdAt: new Date().toISOString(),
    };
    await writeFileBeneath(context.workspace, absolutePath, `${JSON.stringify(definition, null, 2)}\n`);
    const shown = displayPath(context.workspace, absolutePath);
    return {
      output:
        `Wrote ${shown}. The tool is not active in this session: an operator has to enable it, ` +
        'and every call of it will be DANGEROUS (asks a person each time). Placeholders {{name}} are filled from its arguments.',
      display: shown,
    };
  },
};

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
