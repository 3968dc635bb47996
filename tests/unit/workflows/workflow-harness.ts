/**
 * The command layer with the /call and /team handlers on the real engine (roster, tools, jail,
 * in-memory store), a scripted model and the in-memory surface.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config/load-config.js';
import { createEngine, type Engine } from '../../../src/app/create-engine.js';
import { createModelControl } from '../../../src/app/model-control.js';
import { commandDependencies } from '../../../src/app/command-wiring.js';
import { createCommandLayer } from '../../../src/commands/create-command-layer.js';
import type { SlashCommandEvent } from '../../../src/commands/inbound-event.js';
import { createWorkflows, type WorkflowOptions } from '../../../src/commands/workflows/create-workflows.js';
import { createScriptedModel, type ScriptedStep } from '../../../src/core/model/scripted-model.js';
import type { LanguageModel } from '../../../src/core/model/language-model.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { createSecretMasker } from '../../../src/core/safety/secret-mask.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';
import { createMemorySurface } from '../../support/memory-surface.js';

let eventCounter = 0;

export async function startWorkflowHarness(options: { steps?: ScriptedStep[]; model?: LanguageModel; workflow?: WorkflowOptions } = {}) {
  const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-workflows-'));
  const config = loadConfig({
    environment: { TSUKA_DATA_DIR: path.join(home, 'data'), TSUKA_WORKSPACE: path.join(home, 'workspace'), TSUKA_STORE_URL: 'memory://' },
    workingDirectory: home,
    rootDirectory: PACKAGE_ROOT,
  });
  const logger = createMemoryLogger();
  const scripted = createScriptedModel(options.steps ?? []);
  const engine: Engine = await createEngine({ config, logger, maskSecrets: createSecretMasker(config.environment), model: options.model ?? scripted });
  const deps = commandDependencies(engine, createModelControl(engine), { admins: ['playground:admin'] });
  const openLayer = () => createCommandLayer(deps, createWorkflows(deps, { cardIntervalMs: 50, ...options.workflow }));
  let layer = openLayer();
  const surface = createMemorySurface({ editIntervalMs: 5 });
  const base = { platform: 'playground' as const, channel: 'playground:general', user: 'playground:alice', fromBot: false };
  return {
    engine,
    get layer() {
      return layer;
    },
    surface,
    model: scripted,
    logger,
    async slash(command: SlashCommandEvent['command'], text: string): Promise<string[]> {
      const replies: string[] = [];
      await layer.handle(
        { ...base, type: 'slash-command', id: `w${++eventCounter}`, command, text, reply: async (reply) => void replies.push(reply) },
        surface,
      );
      return replies;
    },
    click(actionId: string, value: string, message: string, user = 'playground:alice'): Promise<void> {
      return layer.handle(
        { ...base, user, type: 'button-action', id: `w${++eventCounter}`, actionId, value, message, replyEphemeral: async () => undefined },
        surface,
      );
    },
    /** The run's thread: every message after the root, in order. */
    thread(): ReturnType<typeof surface.inThread> {
      const root = surface.messages.find((message) => message.thread.startsWith('root:'));
      return root ? surface.inThread(`thread:${root.ref}`) : [];
    },
    async runs() {
      return engine.runs.list();
    },
    /** A restart as `tsuka start` has one: the running runs are interrupted, then a new command layer over the same store and workspace. */
    async restart(): Promise<void> {
      await layer.stopAll();
      layer = openLayer();
    },
    async stop() {
      await layer.stopAll();
      await engine.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
