/** `tsuka export [RUN_ID] [--json]`: one run's transcript on stdout (default: the latest run), Markdown or JSON. */
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';
import { exportRunJson, exportRunMarkdown } from '../core/store/run-export.js';
import { createConfigMasker } from '../app/config-masker.js';
import { withRunStore } from './runs-command.js';

export async function runExport(args: string[], config: AppConfig, io: CliIo): Promise<number> {
  const json = args.includes('--json');
  const unknown = args.filter((arg) => arg.startsWith('--') && arg !== '--json');
  if (unknown.length > 0) {
    io.stderr(`Unknown flag ${unknown[0]}.\nUsage: tsuka export [RUN_ID] [--json]\n`);
    return 2;
  }
  const runId = args.find((arg) => !arg.startsWith('--'));
  // Stored transcripts are masked already; masking again guards runs stored by older versions.
  const maskSecrets = createConfigMasker(config);
  return withRunStore(config, async (runs) => {
    const run = runId ? await runs.get(runId) : (await runs.list({ limit: 1 }))[0];
    if (!run) {
      io.stderr(runId ? `No run ${runId}. List them with: tsuka runs\n` : 'No runs yet.\n');
      return 1;
    }
    const events = await runs.events(run.id);
    io.stdout(maskSecrets(json ? exportRunJson(run, events) : exportRunMarkdown(run, events)));
    return 0;
  });
}
