/** `tsuka start`: runs every adapter whose credentials are set; without any, the local playground. */
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';
import { startApp } from '../app/start-app.js';

export async function runStart(config: AppConfig, io: CliIo): Promise<number> {
  // A failure here (data folder locked, busy port, broken data file) becomes one line in main.
  const app = await startApp({ config, io, processGuard: true });
  const stopSignals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      for (const name of stopSignals) process.removeAllListeners(name);
      io.stdout(`\n${signal} received: stopping (running turns are told they were interrupted)…\n`);
      // The design's promise: out within 10 s whatever hangs (a socket, a child that ignores SIGTERM).
      const forced = setTimeout(() => {
        io.stderr('Shutdown took longer than 10 s: exiting now.\n');
        process.exit(1);
      }, 10_000);
      forced.unref();
      app
        .stop()
        .then(
          () => {
            // Anything still holding the event loop open after a clean stop must not keep the process alive.
            setTimeout(() => process.exit(0), 1000).unref();
            resolve(0);
          },
          (error: unknown) => {
            io.stderr(`Shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
            resolve(1);
          },
        )
        .finally(() => clearTimeout(forced));
    };
    for (const name of stopSignals) process.once(name, stop);
  });
}
