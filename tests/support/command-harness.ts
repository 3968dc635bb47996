/**
 * The command layer on the real engine (roster, tools, jail, in-memory store) with a scripted model
 * and the in-memory surface: for command-layer tests that need no platform.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { createEngine, type Engine } from '../../src/app/create-engine.js';
import { createModelControl } from '../../src/app/model-control.js';
import { commandDependencies } from '../../src/app/command-wiring.js';
import { createCommandLayer, type CommandLayer } from '../../src/commands/create-command-layer.js';
import type { ChannelInfo } from '../../src/commands/chat-surface.js';
import type { CommandSettings, ModelControl } from '../../src/commands/command-dependencies.js';
import type { InboundEvent, MentionEvent, SlashCommandEvent, ThreadMessageEvent } from '../../src/commands/inbound-event.js';
import { createScriptedModel, type ScriptedStep } from '../../src/core/model/scripted-model.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { createConfigMasker } from '../../src/app/config-masker.js';
import { PACKAGE_ROOT } from '../../src/app/package-root.js';
import { createMemorySurface } from './memory-surface.js';
import { createWorkflows } from '../../src/commands/workflows/create-workflows.js';
import { createQueuedModel } from '../../src/core/model/queued-model.js';
import type { LanguageModel } from '../../src/core/model/language-model.js';

let eventCounter = 0;

export async function startCommandHarness(
  options: {
    steps?: ScriptedStep[];
    settings?: Partial<CommandSettings>;
    environment?: Record<string, string>;
    workflows?: boolean;
    modelId?: string;
    queue?: number;
    model?: LanguageModel;
    /** What the channel is, or each channel (default: the playground's — one person and the bot). */
    channelInfo?: ChannelInfo | ((channel: string) => ChannelInfo);
    /** Changes the model control the command layer gets (several servers, say). */
    models?: (control: ModelControl) => ModelControl;
  } = {},
) {
  const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-commands-'));
  const config = loadConfig({
    environment: {
      TSUKA_DATA_DIR: path.join(home, 'data'),
      TSUKA_WORKSPACE: path.join(home, 'workspace'),
      TSUKA_STORE_URL: 'memory://',
      ...options.environment,
    },
    workingDirectory: home,
    rootDirectory: PACKAGE_ROOT,
  });
  const logger = createMemoryLogger();
  const model = createScriptedModel(options.steps ?? [], { modelId: options.modelId });
  const turnModel: LanguageModel = options.model ?? model;
  const engine: Engine = await createEngine({
    config,
    logger,
    maskSecrets: createConfigMasker(config),
    model: options.queue ? createQueuedModel(turnModel, { maxConcurrent: options.queue }) : turnModel,
  });
  const control = createModelControl(engine);
  const deps = commandDependencies(engine, options.models?.(control) ?? control, options.settings);
  const layer: CommandLayer = createCommandLayer(deps, options.workflows ? createWorkflows(deps) : undefined);
  const surface = createMemorySurface({ editIntervalMs: 10, ...(options.channelInfo ? { channelInfo: options.channelInfo } : {}) });
  const base = { platform: 'playground' as const, channel: 'playground:general', user: 'playground:alice', fromBot: false };
  return {
    engine,
    layer,
    surface,
    model,
    logger,
    send: (event: InboundEvent) => layer.handle(event, surface),
    mention(text: string, extra: Partial<MentionEvent> = {}): Promise<void> {
      const id = `e${++eventCounter}`;
      return layer.handle({ ...base, type: 'mention', id, message: `m${id}`, text, ...extra }, surface);
    },
    threadMessage(thread: string, text: string, extra: Partial<ThreadMessageEvent> = {}): Promise<void> {
      const id = `e${++eventCounter}`;
      return layer.handle({ ...base, type: 'thread-message', id, message: `m${id}`, thread, text, ...extra }, surface);
    },
    async slash(command: SlashCommandEvent['command'], text: string, extra: Partial<SlashCommandEvent> = {}): Promise<string[]> {
      const replies: string[] = [];
      await layer.handle(
        { ...base, type: 'slash-command', id: `e${++eventCounter}`, command, text, reply: async (reply) => void replies.push(reply), ...extra },
        surface,
      );
      return replies;
    },
    async stop() {
      await layer.stopAll();
      await engine.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
