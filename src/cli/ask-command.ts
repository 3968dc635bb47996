/**
 * `tsuka ask <character> "<prompt>" [--yes[=all]]`: one headless turn in the terminal.
 * Reply text on stdout, one line per tool call on stderr; anything not SAFE is denied unless --yes.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';
import { createEngine } from '../app/create-engine.js';
import { createLogger, resolveLogFormat } from '../app/create-logger.js';
import { createConfigMasker } from '../app/config-masker.js';
import { createPermissionManager } from '../core/safety/permission-manager.js';
import { createAgentRunner } from '../core/agent/create-agent-runner.js';
import { findCharacter, suggestCharacters } from '../core/data/character-lookup.js';
import type { PermissionPrompt } from '../core/safety/permission-port.js';
import type { Roster } from '../core/data/types.js';
import { noModelMessage } from '../app/no-model-message.js';
import { connectModelServer, findModelServer, type FoundModelServers } from '../app/model-connection.js';
import { resolveModelTier } from '../core/provider/model-tier.js';
import { createTranscriptWriter } from '../commands/runs/record-agent-event.js';
import { createTerminalOutput } from './terminal-output.js';
import { memoryScopeOf } from '../core/scopes/conversation-scope.js';
import type { TurnResult } from '../core/agent/agent-runner.js';
import { CUT_ANSWER_NOTE, EMPTY_ANSWER_TEXT } from '../commands/reply/answer-notes.js';
import type { MemoryAccess } from '../core/scopes/memory-access.js';

/** The CLI's one person: the host operator, who may do anything memory allows an admin. */
const CLI_USER = 'cli:local';

/** `local:<os user>`: `tsuka ask` keeps its own memory, apart from every channel's. */
function localMemoryAccess(): MemoryAccess {
  return { scope: memoryScopeOf({ kind: 'local', osUser: osUserName() }), user: CLI_USER, isAdmin: () => true };
}

function osUserName(): string | undefined {
  try {
    return os.userInfo().username;
  } catch (error) {
    // No passwd entry for this uid (a container's arbitrary uid): the scope is `local:local`.
    if (error instanceof Error) return undefined;
    throw error;
  }
}

/**
 * The exit codes of `tsuka ask` (README, "Exit codes"). Every code but 0 comes with one line on stderr.
 */
export const ASK_EXIT = {
  /** A final answer, on stdout. */
  answered: 0,
  /** The model failed, the tool-round limit was reached, or the run was stopped (Ctrl-C); also any unexpected failure. */
  failed: 1,
  /** Wrong usage: a missing prompt, an unknown flag or character, an invalid configuration. */
  usage: 2,
  /** No model server answers. */
  noModel: 3,
  /** The answer reached the model's output-token limit and was cut: stdout holds the part written. */
  cut: 4,
  /** The model ended its turn without any text: nothing on stdout. */
  empty: 5,
} as const;

/** How a finished turn ends the command: its exit code and the one line said on stderr, as the thread says it. */
export function askEnding(result: Pick<TurnResult, 'finishReason' | 'text' | 'error'>): { exitCode: number; line?: string } {
  switch (result.finishReason) {
    case 'stop':
      return result.text.trim() === '' ? { exitCode: ASK_EXIT.empty, line: `(${EMPTY_ANSWER_TEXT})` } : { exitCode: ASK_EXIT.answered };
    case 'length':
      return { exitCode: ASK_EXIT.cut, line: `⚠️ ${CUT_ANSWER_NOTE}` };
    case 'error':
      return { exitCode: ASK_EXIT.failed, line: `Error: ${result.error?.message ?? 'the model failed'}` };
    case 'max-rounds':
      return { exitCode: ASK_EXIT.failed, line: 'Stopped: the tool-round limit was reached.' };
    case 'aborted':
      return { exitCode: ASK_EXIT.failed, line: 'Stopped.' };
    default:
      return { exitCode: ASK_EXIT.failed, line: `Stopped: ${String(result.finishReason satisfies never)}.` };
  }
}

export async function runAsk(args: string[], config: AppConfig, io: CliIo): Promise<number> {
  const yesFlag = args.find((arg) => arg === '--yes' || arg.startsWith('--yes='));
  const positional = args.filter((arg) => !arg.startsWith('--'));
  const [characterName, ...promptWords] = positional;
  const prompt = promptWords.join(' ').trim();
  if (!characterName || !prompt) {
    io.stderr('Usage: tsuka ask <character> "<prompt>" [--yes[=all]] [--workspace DIR]\n');
    return 2;
  }
  if (yesFlag && yesFlag !== '--yes' && yesFlag !== '--yes=all') {
    io.stderr(`Unknown flag ${yesFlag}: use --yes (RESTRICTED tools) or --yes=all (everything).\n`);
    return 2;
  }
  const maskSecrets = createConfigMasker(config);
  const logger = createLogger({
    format: resolveLogFormat(config.logFormat, io.interactive),
    level: config.logLevel === 'info' ? 'warn' : config.logLevel,
    maskSecrets,
    write: io.stderr,
  });
  // The character is checked before any model server is probed: a typo fails at once. Once it is
  // found, the probe runs while the engine opens its store.
  let probing: Promise<FoundModelServers | null> | undefined;
  const startProbing = (roster: Roster) => {
    if (!findCharacter(roster, characterName)) return;
    probing = findModelServer(config, { logger });
    probing.catch(() => undefined); // awaited below, unless the engine fails first
  };
  const engine = await createEngine({ config, logger, maskSecrets, discover: false, onRoster: startProbing });
  try {
    const character = findCharacter(engine.roster, characterName);
    if (!character) {
      const suggestions = suggestCharacters(engine.roster, characterName);
      io.stderr(
        `Unknown character "${characterName}".${suggestions.length ? ` Did you mean ${suggestions.map((c) => c.name).join(', ')}?` : ''} Characters: ${[...engine.roster.characters.keys()].join(', ')}\n`,
      );
      return 2;
    }
    const server = await (probing ?? findModelServer(config, { logger }));
    if (!server) {
      io.stderr(`${noModelMessage(config)}\n`);
      return 3;
    }
    const { model } = await connectModelServer(config, server, { logger, slots: engine.coordination.slots });
    const prompter: PermissionPrompt = {
      async ask(request) {
        const allowed = yesFlag === '--yes=all' || (yesFlag === '--yes' && request.riskLevel === 'RESTRICTED');
        io.stderr(`${allowed ? '✅ approved' : '⛔ denied'} (${request.riskLevel}) ${request.summary} — ${request.reason}\n`);
        // Decided by the host operator's flags: in the audit log like a click in chat.
        await engine.audit.append({
          type: 'approval',
          decision: allowed ? 'approved' : 'denied',
          actor: 'cli',
          where: { platform: 'cli', channelId: 'terminal' },
          runId: request.runId,
          tool: request.toolName,
          riskLevel: request.riskLevel,
          summary: request.summary,
        });
        if (!allowed) {
          const hint = request.riskLevel === 'RESTRICTED' ? '--yes' : '--yes=all';
          return { outcome: 'denied', note: `not allowed in headless mode (run again with ${hint} to allow)` };
        }
        return { outcome: 'approved', decidedBy: 'cli' };
      },
    };
    const permissions = createPermissionManager({ prompt: prompter, logger });
    const runner = createAgentRunner({
      model,
      tools: engine.tools,
      permissions,
      memory: engine.memory,
      logger,
      settings: {
        maxToolRounds: config.maxToolRounds,
        maxToolResultTokens: config.maxToolResultTokens,
        tier: resolveModelTier(model.modelId, { tier: config.llm.tier }),
        defaultEffort: config.llm.defaultEffort,
      },
    });
    const memoryAccess = localMemoryAccess();
    const run = await engine.runs.create({
      id: randomUUID(),
      kind: 'ask',
      title: maskSecrets(prompt).slice(0, 80),
      startedBy: CLI_USER,
      where: { platform: 'cli', channelId: 'terminal' },
      status: 'running',
      createdAt: Date.now(),
    });
    await engine.runs.appendEvent(run.id, { type: 'message', agent: 'user', text: maskSecrets(prompt) });
    logger.info('run started', { runId: run.id, kind: 'ask', character: character.name, platform: 'cli' });
    const startedAt = Date.now();
    const abort = new AbortController();
    const onSignal = () => abort.abort();
    process.once('SIGINT', onSignal);
    const terminal = createTerminalOutput({ stdout: io.stdout, stderr: io.stderr, interactive: io.interactive ?? false, maskSecrets });
    let events: Promise<void> = Promise.resolve();
    const transcript = createTranscriptWriter(engine.runs, maskSecrets, run.id);
    const result = await runner.runTurn({
      character,
      roster: engine.roster,
      history: [],
      userMessage: prompt,
      runId: run.id,
      requesterId: CLI_USER,
      toolContext: {
        workspace: engine.workspace,
        childEnv: engine.childEnv,
        sandbox: engine.sandbox,
        maskSecrets,
        logger,
        services: { memory: engine.memory, memoryAccess },
      },
      memoryScope: memoryAccess.scope,
      signal: abort.signal,
      onEvent: (event) => {
        events = events.then(() => transcript.record(character.name, event));
        terminal.onEvent(event);
      },
    });
    process.removeListener('SIGINT', onSignal);
    terminal.close();
    await events;
    const status = result.finishReason === 'stop' ? 'completed' : result.finishReason === 'aborted' ? 'stopped' : 'failed';
    await engine.runs.update(run.id, (record) => ({ ...record, status, endedAt: Date.now(), stats: { ...result.usage } }));
    logger.info('run ended', {
      runId: run.id,
      kind: 'ask',
      character: character.name,
      outcome: status,
      finishReason: result.finishReason,
      durationMs: Date.now() - startedAt,
      ...result.usage,
    });
    const ending = askEnding(result);
    if (ending.line) io.stderr(`${ending.line}\n`);
    return ending.exitCode;
  } finally {
    await engine.close();
  }
}
