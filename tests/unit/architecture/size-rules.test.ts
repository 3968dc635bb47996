/**
 * Size rules (issue 36), like the cycle test: no function over 150 lines and no file over 400 in
 * src/ (the playground's page included). What is over today is named in an allow-list with its
 * size now; an entry may only shrink (the test fails when one grows, when one shrinks without its
 * entry being lowered, and when one is back under the line, so that the list is cut). Functions are found with the TypeScript parser: function
 * declarations, methods, arrow functions and function expressions, counted from their first line
 * to their last.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../../src');
const MAX_FUNCTION_LINES = 150;
const MAX_FILE_LINES = 400;

/** Over the line today: `file#function` → its lines now. Shrink it; never add to it. */
const FUNCTIONS_OVER: Record<string, number> = {
  'adapters/discord/surface.ts#createDiscordSurface': 196,
  'adapters/playground/state.ts#createPlaygroundState': 178,
  'adapters/shared/call-budget.ts#createCallBudget': 232,
  'adapters/slack/reply-stream.ts#createSlackReplyStream': 290,
  'adapters/slack/surface.ts#createSlackSurface': 234,
  'app/create-engine.ts#createEngine': 167,
  'app/start-app.ts#startLocked': 176,
  'cli/doctor-command.ts#runDoctor': 199,
  'commands/approvals/approval-flow.ts#createApprovalFlow': 152,
  'commands/turns/conversations.ts#createConversations': 272,
  'commands/reply/reply-renderer.ts#createReplyRenderer': 228,
  'commands/turns/run-turn.ts#runTurnInThread': 207,
  'commands/workflows/workflow-session.ts#openWorkflowSession': 330,
  'config/load-config.ts#loadConfig': 188,
  'core/agent/create-agent-runner.ts#createAgentRunner': 220,
  'core/agent/create-agent-runner.ts#runTurn': 193,
  'core/coordination/redis-coordination.ts#openRedisCoordination': 239,
  'core/memory/memory-store.ts#createMemoryStore': 216,
  'core/tools/mcp/mcp-server-connection.ts#createMcpServerConnection': 193,
};
const FILES_OVER: Record<string, number> = {
  'adapters/playground/web/app.js': 505,
  'adapters/playground/web/style.css': 563,
  'commands/workflows/workflow-session.ts': 473,
};

function files(directory: string, pattern: RegExp): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const full = path.join(directory, entry);
    return statSync(full).isDirectory() ? files(full, pattern) : pattern.test(entry) ? [full] : [];
  });
}

function lineCount(text: string): number {
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

/** The name a function is known by: its own, its variable's, its property's, or `<anonymous@line>`. */
function functionName(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.FunctionLikeDeclaration;
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (named.name && (ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  return `<anonymous@${line}>`;
}

function functionSizes(file: string): { name: string; lines: number }[] {
  const text = readFileSync(file, 'utf8');
  // A file no longer than the line cannot hold a function over it: only the longer ones are parsed.
  if (lineCount(text) <= MAX_FUNCTION_LINES) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name: functionName(node, source), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('size rules (no function over 150 lines, no file over 400 in src/)', () => {
  it('no function grows past 150 lines; the allow-list only shrinks', () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const file of files(SRC, /\.ts$/)) {
      for (const { name, lines } of functionSizes(file)) {
        if (lines <= MAX_FUNCTION_LINES) continue;
        const key = `${path.relative(SRC, file)}#${name}`;
        seen.add(key);
        const allowed = FUNCTIONS_OVER[key];
        if (allowed === undefined) problems.push(`${key} has ${lines} lines (at most ${MAX_FUNCTION_LINES}): split it`);
        else if (lines > allowed) problems.push(`${key} grew to ${lines} lines (allowed ${allowed}): split it, do not grow it`);
        else if (lines < allowed) problems.push(`${key} shrank to ${lines} lines: lower its FUNCTIONS_OVER entry to ${lines}`);
      }
    }
    for (const key of Object.keys(FUNCTIONS_OVER)) {
      if (!seen.has(key)) problems.push(`${key} is under the line now (or gone): take it off FUNCTIONS_OVER`);
    }
    expect(problems).toEqual([]);
  });

  it('no file grows past 400 lines (the playground page included); the allow-list only shrinks', () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const file of files(SRC, /\.(ts|js|css|html)$/)) {
      const lines = lineCount(readFileSync(file, 'utf8'));
      if (lines <= MAX_FILE_LINES) continue;
      const key = path.relative(SRC, file);
      seen.add(key);
      const allowed = FILES_OVER[key];
      if (allowed === undefined) problems.push(`${key} has ${lines} lines (at most ${MAX_FILE_LINES}): split it`);
      else if (lines > allowed) problems.push(`${key} grew to ${lines} lines (allowed ${allowed})`);
      else if (lines < allowed) problems.push(`${key} shrank to ${lines} lines: lower its FILES_OVER entry to ${lines}`);
    }
    for (const key of Object.keys(FILES_OVER)) {
      if (!seen.has(key)) problems.push(`${key} is under the line now (or gone): take it off FILES_OVER`);
    }
    expect(problems).toEqual([]);
  });
});
