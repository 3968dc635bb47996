/**
 * `/tsuka benchmark` (admins only): measures the current model, answering the admin with progress
 * and then the table and the derived tier. The run goes on after the command returns.
 */
import type { SlashCommandEvent } from '../inbound-event.js';
import type { CommandDependencies } from '../command-dependencies.js';
import { formatProfileTable } from '../../core/benchmark/format-profile.js';

/** Progress replies while it runs (Slack takes at most 5 responses per command; start + these + result fit). */
const PROGRESS_REPLIES_AT = [0.5];

export async function handleBenchmarkSubcommand(event: SlashCommandEvent, deps: CommandDependencies): Promise<void> {
  const reply = (text: string) => event.reply(deps.maskSecrets(text));
  if (!deps.settings.admins.includes(event.user)) return reply('Only an admin can run the benchmark.');
  const benchmark = deps.benchmark;
  const current = deps.models.current();
  if (!benchmark || !current) return reply(`No model to measure — ${deps.models.unavailableMessage().split('\n')[0]}`);
  if (benchmark.running()) return reply('A benchmark is already running; its result will be posted to whoever started it.');
  await reply(`Benchmarking ${current.model.modelId} (speed probes + quality suite; the model's queue is shared with running turns)…`);
  const pending = [...PROGRESS_REPLIES_AT];
  void benchmark
    .run((progress) => {
      if (pending.length > 0 && progress.done / progress.total >= pending[0]!) {
        pending.shift();
        void reply(`Benchmark: ${progress.done}/${progress.total} steps done…`).catch((error: unknown) =>
          deps.logger.warn('benchmark progress reply failed', { error }),
        );
      }
    })
    .then((profile) =>
      reply(
        `${formatProfileTable(profile)}\nTier ${profile.tier} is used for ${profile.modelId} from now on${deps.settings.tierPinned ? ' (but TSUKA_LLM_TIER overrides it)' : ''}.`,
      ),
    )
    .catch((error: unknown) => {
      deps.logger.warn('benchmark failed', { error });
      return reply(`The benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
    })
    .catch((error: unknown) => deps.logger.warn('benchmark reply failed', { error }));
}
