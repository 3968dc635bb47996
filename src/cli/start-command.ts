/** `tsuka start`: runs every adapter whose credentials are set; without any, the local playground. */
import type { AppConfig } from '../config/app-config.js';
import type { CliIo } from './main.js';
import { startApp } from '../app/start-app.js';

export async function runStart(config: AppConfig, io: CliIo): Promise<number> {
  const app = await startApp({ config, io });
  const stopSignals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      for (const name of stopSignals) process.removeAllListeners(name);
      io.stderr(`\n${signal} received: stopping (running turns are told they were interrupted)…\n`);
      const forced = setTimeout(() => resolve(1), 10_000);
      forced.unref();
      app.stop().then(
        () => resolve(0),
        (error: unknown) => {
          io.stderr(`Shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve(1);
        },
      ).finally(() => clearTimeout(forced));
    };
    for (const name of stopSignals) process.once(name, stop);
  });
}
