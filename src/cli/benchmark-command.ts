/**
 * `tsuka benchmark`: measures the configured model (time to first token, generation and prompt
 * processing speed, quality on the fixed suite), prints progress on stderr and the table on stdout,
 * and stores the profile for the model id. Exit status 0 when the run completed.
 */
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';
import { createEngine } from '../app/create-engine.js';
import { createJsonLogger } from '../app/json-logger.js';
import { createConfigMasker } from '../app/config-masker.js';
import { runBenchmark } from '../core/benchmark/run-benchmark.js';
import { formatProfileTable } from '../core/benchmark/format-profile.js';
import { noModelMessage } from '../app/no-model-message.js';

export async function runBenchmarkCommand(config: AppConfig, io: CliIo, options: { fetch?: typeof fetch } = {}): Promise<number> {
  const maskSecrets = createConfigMasker(config);
  const logger = createJsonLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, maskSecrets, write: io.stderr });
  const engine = await createEngine({ config, logger, maskSecrets, connectMcp: false, ...(options.fetch ? { fetch: options.fetch } : {}) });
  try {
    if (!engine.model) {
      io.stderr(`${noModelMessage(config)}\n`);
      return 1;
    }
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
