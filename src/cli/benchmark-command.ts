/**
 * `tsuka benchmark`: measures the configured model (time to first token, generation and prompt
 * processing speed, quality on the fixed suite), prints progress on stderr and the table on stdout,
 * and stores the profile for the model id. Exit status 0 when the run completed.
 * `tsuka benchmark --reset` forgets the stored profile of the configured model instead (exit 0), so
 * its tier comes from `TSUKA_LLM_TIER` or its name again: one run no longer fixes a tier for good.
 */
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';
import { createEngine, type Engine } from '../app/create-engine.js';
import { createJsonLogger } from '../app/json-logger.js';
import { createConfigMasker } from '../app/config-masker.js';
import { runBenchmark } from '../core/benchmark/run-benchmark.js';
import { formatProfileTable } from '../core/benchmark/format-profile.js';
import { noModelMessage } from '../app/no-model-message.js';

export async function runBenchmarkCommand(config: AppConfig, io: CliIo, options: { fetch?: typeof fetch; argv?: readonly string[] } = {}): Promise<number> {
  const unknown = (options.argv ?? []).filter((argument) => argument !== '--reset');
  if (unknown.length > 0) {
    io.stderr(`tsuka benchmark: unknown argument ${unknown[0]} (usage: tsuka benchmark [--reset]).\n`);
    return 2;
  }
  const maskSecrets = createConfigMasker(config);
  const logger = createJsonLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, maskSecrets, write: io.stderr });
  const engine = await createEngine({ config, logger, maskSecrets, connectMcp: false, ...(options.fetch ? { fetch: options.fetch } : {}) });
  try {
    if (!engine.model) {
      io.stderr(`${noModelMessage(config)}\n`);
      return 1;
    }
    if (options.argv?.includes('--reset')) return await resetProfile(engine, config, io);
    io.stderr(`Benchmarking ${engine.model.modelId}…\n`);
    const profile = await runBenchmark({
      model: engine.model,
      onProgress: (progress) =>
        io.stderr(`[${progress.done}/${progress.total}] ${progress.step}${progress.passed === undefined ? '' : progress.passed ? ' ✓' : ' ✗'}\n`),
    });
    await engine.tiers.save(profile);
    io.stdout(`${formatProfileTable(profile).replace(/^```\n|\n```$/g, '')}\n`);
    io.stdout(
      config.llm.tier
        ? `Profile stored. TSUKA_LLM_TIER=${config.llm.tier} still overrides the measured tier ${profile.tier}.\n`
        : `Profile stored: ${profile.modelId} runs as tier ${profile.tier} from the next start.\n`,
    );
    return 0;
  } finally {
    await engine.close();
  }
}

/** Forgets the configured model's stored profile and says which tier it has from now on. */
async function resetProfile(engine: Engine, config: AppConfig, io: CliIo): Promise<number> {
  const modelId = engine.model!.modelId;
  const removed = await engine.tiers.reset(modelId);
  const tier = engine.tiers.tierFor(modelId);
  const source = config.llm.tier ? 'TSUKA_LLM_TIER' : 'its name';
  io.stdout(
    removed
      ? `Profile of ${modelId} removed: it runs as tier ${tier} (from ${source}) from the next start. \`tsuka benchmark\` measures it again.\n`
      : `No stored profile for ${modelId}: its tier is ${tier} (from ${source}).\n`,
  );
  return 0;
}
