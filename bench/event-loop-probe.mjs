// Preloaded into a `tsuka start` child by the benchmarks (`node --import ./bench/event-loop-probe.mjs
// bin/tsuka.js start`), so the figures come from the bot's own process and nothing of the bot changes.
// Over the IPC channel the benchmark sends 'start' (begin measuring; with `profile`, a CPU profile too)
// and 'report' (answered with the event-loop delay of the window, in ms, the peak RSS and the CPU time).
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';

// 1 ms sampling: with the default 10 ms every sample includes the interval itself.
const delay = monitorEventLoopDelay({ resolution: 1 });
let peakRss = 0;
let rssWatch;
let profiling;
let cpuAtStart;
/** Stalls of the loop longer than GAP_MS, with when they ended (ms after 'start'), to find the work behind the max. */
const GAP_MS = 40;
let gaps = [];
let gapWatch;
let windowStart = 0;

async function start(profileFile) {
  delay.reset();
  delay.enable();
  peakRss = process.memoryUsage().rss;
  cpuAtStart = process.cpuUsage();
  rssWatch = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  gaps = [];
  windowStart = performance.now();
  let lastTick = windowStart;
  let lastUsage = process.resourceUsage();
  gapWatch = setInterval(() => {
    const now = performance.now();
    const usage = process.resourceUsage();
    if (now - lastTick > GAP_MS) {
      gaps.push({
        atMs: Math.round(now - windowStart),
        gapMs: Math.round(now - lastTick),
        // CPU of the process (all its threads) over the stall: far below the stall's length means the bot was not running.
        cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime - lastUsage.userCPUTime - lastUsage.systemCPUTime) / 1000),
        // Times the kernel took the CPU away from the process meanwhile (a loaded machine).
        preempted: usage.involuntaryContextSwitches - lastUsage.involuntaryContextSwitches,
        endUs: Number(process.hrtime.bigint() / 1000n),
      });
    }
    lastTick = now;
    lastUsage = usage;
  }, 5);
  if (profileFile) {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    profiling = { session, file: profileFile };
  }
}

async function report() {
  delay.disable();
  clearInterval(rssWatch);
  clearInterval(gapWatch);
  const cpu = process.cpuUsage(cpuAtStart);
  if (profiling) {
    const { profile } = await profiling.session.post('Profiler.stop');
    await writeFile(profiling.file, JSON.stringify(profile));
    profiling.session.disconnect();
    profiling = undefined;
  }
  const ms = (nanoseconds) => nanoseconds / 1e6;
  return {
    p50: ms(delay.percentile(50)),
    p99: ms(delay.percentile(99)),
    max: ms(delay.max),
    rssMb: Math.max(peakRss, process.memoryUsage().rss) / 1_048_576,
    // CPU time of the whole process (its threads too): unlike the delay, it barely moves with the machine's load.
    cpuS: (cpu.user + cpu.system) / 1e6,
    gaps,
    windowStartMs: Math.round(windowStart),
  };
}

if (process.send) {
  process.on('message', (message) => {
    if (message?.type === 'start') void start(message.profile).then(() => process.send({ type: 'started' }));
    if (message?.type === 'report') void report().then((figures) => process.send({ type: 'report', figures }));
  });
  // The channel must not keep the bot alive once it stops on its own.
  process.channel?.unref();
}
