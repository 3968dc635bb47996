/** Runs `tsuka benchmark` / `/tsuka benchmark` on the current model and stores the profile (one run at a time). */
import type { BenchmarkControl, ModelControl } from '../commands/command-dependencies.js';
import { TsukaError } from '../core/errors.js';
import { runBenchmark } from '../core/benchmark/run-benchmark.js';
import type { Engine } from './create-engine.js';

export function createBenchmarkControl(engine: Pick<Engine, 'tiers' | 'logger'>, models: Pick<ModelControl, 'current'>): BenchmarkControl {
  let running = false;
  return {
    running: () => running,
    async run(onProgress) {
      const current = models.current();
      if (!current) throw new TsukaError('no_model', 'No model server is connected.');
      if (running) throw new TsukaError('benchmark_running', 'A benchmark is already running.');
      running = true;
      try {
        const profile = await runBenchmark({ model: current.model, onProgress });
        await engine.tiers.save(profile);
        engine.logger.info('model benchmarked', { model: profile.modelId, tier: profile.tier, quality: profile.quality.score });
        return profile;
      } finally {
        running = false;
      }
    },
  };
}
