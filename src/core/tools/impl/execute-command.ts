import { classifyCommand } from '../../safety/command-risk.js';
import { gitCommandEnv } from '../../safety/git-env.js';
import { runCommand } from '../../safety/process-runner.js';
import { limitMessage } from '../../safety/sandbox-limits.js';
import { countLines } from '../format-bytes.js';
import { displayCwd } from '../host-paths.js';
import type { CallRisk, RiskLevel, ToolContext, ToolImplementation } from '../tool.js';

export const EXECUTE_COMMAND_DEFAULT_TIMEOUT_MS = 120_000;
export const EXECUTE_COMMAND_MAX_TIMEOUT_MS = 600_000;
const MIN_TIMEOUT_MS = 1_000;
const SUMMARY_MAX_CHARACTERS = 100;

export type ExecuteCommandInput = { command: string; timeout_ms?: number };

const RANK: Readonly<Record<RiskLevel, number>> = { SAFE: 0, RESTRICTED: 1, DANGEROUS: 2 };
/**
 * The level each call was classified at, by its input object (the agent passes the same object to
 * classify and execute). A call is classified again just before it runs: a path that stayed inside
 * when it was checked (or approved) may have been turned into a link outside since (issue 29).
 */
const classifiedLevels = new WeakMap<ExecuteCommandInput, RiskLevel>();

/**
 * `execute_command`: one shell command in the workspace (or the staging folder a parallel
 * /goal step runs in), inside the command sandbox, with the scrubbed environment, a timeout and
 * the turn's abort signal. The folder it starts in is its jail root: the only one it may write.
 * Its risk is decided per call by the command classifier.
 */
export const executeCommandTool: ToolImplementation<ExecuteCommandInput> = {
  name: 'execute_command',

  classify(input, context) {
    const risk = classify(input, context);
    if (!classifiedLevels.has(input)) classifiedLevels.set(input, risk.level);
    return risk;
  },

  preview(input, context) {
    const risk = classify(input, context);
    const oneLine = input.command.replace(/\s+/g, ' ').trim();
    const summary = oneLine.length > SUMMARY_MAX_CHARACTERS ? `${oneLine.slice(0, SUMMARY_MAX_CHARACTERS)}…` : oneLine;
    return {
      summary: `execute_command ${summary}`,
      details: [`command: ${input.command}`, `cwd: ${displayCwd(context.workspace, commandCwd(context))}`, `risk: ${risk.level} — ${risk.reason}`],
    };
  },

  async execute(input, context) {
    const checked = classifiedLevels.get(input);
    if (checked !== undefined) {
      const now = classify(input, context);
      if (RANK[now.level] > RANK[checked]) {
        return {
          output: `Not run: the command was ${checked} when it was checked but is ${now.level} now — ${now.reason} Something changed its paths meanwhile (a folder swapped for a link?); check them and call it again.`,
          isError: true,
          display: `refused: now ${now.level}`,
        };
      }
    }
    const timeoutMs = Math.min(EXECUTE_COMMAND_MAX_TIMEOUT_MS, Math.max(MIN_TIMEOUT_MS, input.timeout_ms ?? EXECUTE_COMMAND_DEFAULT_TIMEOUT_MS));
    const result = await runCommand({
      command: input.command,
      cwd: commandCwd(context),
      sandbox: context.sandbox,
      network: context.roleNetwork?.() ?? true,
      env: await gitCommandEnv(context.childEnv, commandCwd(context)),
      // A staging copy's dependency folders and git objects: readable, never writable.
      binds: (context.workspace.sharedReadOnly ?? []).map((source) => ({ source })),
      timeoutMs,
      signal: context.signal,
    });
    const text = result.output.trimEnd();
    const lines = countLines(text);
    const truncated = result.truncated ? '\n[output truncated: the middle was left out]' : '';
    if (result.limit && context.sandbox.limits) {
      const message = limitMessage(result.limit, context.sandbox.limits);
      return { output: `${message}; the process tree was killed.\n${text}${truncated}`, isError: true, display: message };
    }
    if (result.aborted) {
      return { output: `Stopped before it finished; the process tree was killed.\n${text}${truncated}`, isError: true, display: 'stopped' };
    }
    if (result.timedOut) {
      const seconds = Math.round(timeoutMs / 1000);
      return {
        output: `Timed out after ${seconds} s; the process tree was killed. Raise timeout_ms (max ${EXECUTE_COMMAND_MAX_TIMEOUT_MS / 1000} s) or run something shorter.\n${text}${truncated}`,
        isError: true,
        display: `timed out after ${seconds} s`,
      };
    }
    const status = result.exitCode === null ? `killed by ${result.signalName ?? 'a signal'}` : `exit ${result.exitCode}`;
    return {
      output: `${status}\n${text === '' ? '(no output)' : text}${truncated}`,
      ...(result.exitCode === null ? { isError: true } : {}),
      display: `${status} · ${lines} ${lines === 1 ? 'line' : 'lines'}`,
    };
  },
};

/** Parallel /goal steps put their staging folder in `services.cwd`; otherwise the workspace root. */
function commandCwd(context: ToolContext): string {
  const cwd = context.services.cwd;
  return typeof cwd === 'string' && cwd !== '' ? cwd : context.workspace.root;
}

function classify(input: ExecuteCommandInput, context: ToolContext): CallRisk {
  return classifyCommand(input.command, {
    workspaceRoot: context.workspace.root,
    cwd: commandCwd(context),
    ...(context.childEnv.PATH !== undefined ? { path: context.childEnv.PATH } : {}),
  });
}
