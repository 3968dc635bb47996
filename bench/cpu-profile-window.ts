/**
 * A CPU profile of one window of a benchmark (the measured turns, not start-up), through the
 * inspector of this process. `--cpu-prof` profiles the whole process, start-up and module loading
 * included; this profiles only what the figure measures. Open the file in Chrome DevTools.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/** The profile's file when `--profile=<file>` was given on the command line, else undefined. */
export function profileFileArgument(argv: readonly string[] = process.argv): string | undefined {
  const flag = argv.find((argument) => argument.startsWith('--profile='));
  return flag ? flag.slice('--profile='.length) : undefined;
}

/** Starts profiling; the returned function stops and writes the profile to `file`. */
export async function startWindowProfile(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  };
}
