import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BENCHMARK_CASES } from '../../../src/core/benchmark/benchmark-cases.js';
import { deriveTier } from '../../../src/core/benchmark/derive-tier.js';
import { runBenchmark, type BenchmarkProgress } from '../../../src/core/benchmark/run-benchmark.js';
import { createOpenAICompatibleModel } from '../../../src/core/provider/openai-compatible-model.js';
import { createEngine } from '../../../src/app/create-engine.js';
import { silentLogger } from '../../../src/core/logger.js';
import { main } from '../../../src/cli/main.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { hermesTextModelReply, largeModelReply, noToolsModelReply } from '../../support/benchmark-scripts.js';
import { createScriptedModel } from '../../../src/core/model/scripted-model.js';
import { testAppConfig } from '../../support/test-app-config.js';

let server: ScriptedModelServer | undefined;
let home: string | undefined;
afterEach(async () => {
  await server?.close();
  if (home) await rm(home, { recursive: true, force: true });
  server = home = undefined;
});

/** Answers every request with `reply`, however many the benchmark makes. */
async function serverAnswering(reply: (body: unknown) => ReturnType<typeof largeModelReply>, modelId = 'scripted-model-7b'): Promise<ScriptedModelServer> {
  server = await startScriptedModelServer({ modelId });
  for (let index = 0; index < BENCHMARK_CASES.length + 2; index++) server.enqueue(reply);
  return server;
}

const modelOn = (target: ScriptedModelServer) => createOpenAICompatibleModel({ providerId: 'scripted', baseURL: target.baseURL, modelId: 'scripted-model-7b' });

describe('the benchmark suite', () => {
  it('has at least 12 cases covering every category, and each reference answer passes its own check', () => {
    expect(BENCHMARK_CASES.length).toBeGreaterThanOrEqual(12);
    expect(new Set(BENCHMARK_CASES.map((testCase) => testCase.category))).toEqual(new Set(['tool-choice', 'no-tool', 'two-calls', 'json-only', 'format']));
    for (const testCase of BENCHMARK_CASES) expect(testCase.check(testCase.reference), testCase.id).toBeUndefined();
    // And the checks are not vacuous: an empty answer fails every case.
    for (const testCase of BENCHMARK_CASES) expect(testCase.check({ text: '', toolCalls: [] }), testCase.id).toBeDefined();
  });

  it('derives the tier from quality', () => {
    expect(deriveTier({ score: 1, toolScore: 1 })).toBe('LARGE');
    expect(deriveTier({ score: 0.7, toolScore: 0.6 })).toBe('MEDIUM');
    expect(deriveTier({ score: 0.9, toolScore: 0.3 })).toBe('SMALL');
  });
});

describe('runBenchmark against the scripted model server', () => {
  it('a model that always answers right is LARGE, with speed figures and progress for every step', async () => {
    const target = await serverAnswering(largeModelReply);
    const progress: BenchmarkProgress[] = [];
    const profile = await runBenchmark({ model: modelOn(target), onProgress: (step) => progress.push(step) });
    expect(profile.quality).toMatchObject({ passed: BENCHMARK_CASES.length, total: BENCHMARK_CASES.length, score: 1, toolScore: 1 });
    expect(profile.tier).toBe('LARGE');
    expect(profile.ttftMs).toBeGreaterThanOrEqual(0);
    expect(profile.generationTokensPerSecond).toBeGreaterThan(0);
    expect(profile.promptTokensPerSecond).toBeGreaterThan(0);
    expect(progress.map((step) => step.done)).toEqual(Array.from({ length: BENCHMARK_CASES.length + 2 }, (_, index) => index + 1));
    expect(progress.at(-1)!.total).toBe(BENCHMARK_CASES.length + 2);
    // The tool cases really offered tools to the model.
    const withTools = target.requests.filter((request) => Array.isArray((request.body as { tools?: unknown[] }).tools));
    expect(withTools.length).toBe(BENCHMARK_CASES.filter((testCase) => testCase.tools).length);
  });

  it('a model that never calls tools is SMALL, and the failures say why', async () => {
    const target = await serverAnswering(noToolsModelReply);
    const profile = await runBenchmark({ model: modelOn(target) });
    expect(profile.tier).toBe('SMALL');
    expect(profile.quality.toolScore).toBeLessThan(0.5);
    expect(profile.cases.find((result) => result.id === 'read-file')).toMatchObject({ passed: false, reason: 'no tool call (expected read_file)' });
    expect(profile.cases.find((result) => result.id === 'greeting')).toMatchObject({ passed: true });
  });
});

describe("how a model calls tools, and the server's own speed", () => {
  it('records that the model writes its tool calls as text, and counts them as calls', async () => {
    const profile = await runBenchmark({ model: modelOn(await serverAnswering(hermesTextModelReply)) });
    expect(profile.toolCallForm).toBe('hermes');
    expect(profile.quality.toolScore).toBe(1);
  });

  it('records native calls as native', async () => {
    expect((await runBenchmark({ model: modelOn(await serverAnswering(largeModelReply)) })).toolCallForm).toBe('native');
  });

  it("takes tokens/s from llama.cpp's timings when the server sends them", async () => {
    const answer = [
      { type: 'text-delta' as const, text: 'one, two' },
      { type: 'usage' as const, usage: { promptTokens: 2000, completionTokens: 200, generationTokensPerSecond: 41.25, promptTokensPerSecond: 1234.5 } },
      { type: 'finish' as const, reason: 'stop' as const },
    ];
    const profile = await runBenchmark({ model: createScriptedModel([answer, answer]), cases: [] });
    expect(profile.generationTokensPerSecond).toBe(41.3);
    expect(profile.promptTokensPerSecond).toBe(1234.5);
  });
});

/** A fresh home and the command line's io on it, against `target`; `out` collects what it printed. */
async function cliOn(target: ScriptedModelServer) {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-bench-'));
  const out = { stdout: '', stderr: '' };
  const environment = {
    PATH: process.env.PATH,
    HOME: home,
    TSUKA_LLM_BASE_URL: target.baseURL,
    TSUKA_DATA_DIR: path.join(home, 'data'),
    TSUKA_WORKSPACE: path.join(home, 'workspace'),
    TSUKA_LOG_LEVEL: 'warn',
  };
  const io = { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), environment, workingDirectory: home };
  return { io, out };
}

describe('tsuka benchmark and the stored profile', () => {
  it('prints the table, stores the profile per model id; the next start takes the tier from it unless TSUKA_LLM_TIER overrides; doctor shows it', async () => {
    const target = await serverAnswering(largeModelReply, 'scripted-model-7b');
    const { io, out } = await cliOn(target);
    expect(await main(['benchmark'], io)).toBe(0);
    expect(out.stderr).toMatch(/\[1\/16\] speed: prompt processing/);
    expect(out.stderr).toMatch(/\[16\/16\] answer-prefix ✓/);
    expect(out.stdout).toMatch(/time to first token\s+\d+ ms/);
    expect(out.stdout).toMatch(/generation\s+[\d.]+ tok\/s/);
    expect(out.stdout).toMatch(/prompt processing\s+[\d.]+ tok\/s/);
    expect(out.stdout).toMatch(/quality\s+14\/14 \(100%; tool calling 100%\)/);
    expect(out.stdout).toMatch(/tier\s+LARGE/);

    // The name says 7b (SMALL); the stored profile says LARGE.
    const maskSecrets = (text: string) => text;
    const engine = await createEngine({ config: testAppConfig(home!, target.baseURL), logger: silentLogger, maskSecrets });
    expect(engine.tier).toBe('LARGE');
    await engine.close();
    const pinned = await createEngine({ config: testAppConfig(home!, target.baseURL, { TSUKA_LLM_TIER: 'MEDIUM' }), logger: silentLogger, maskSecrets });
    expect(pinned.tier).toBe('MEDIUM');
    await pinned.close();

    out.stdout = '';
    await main(['doctor'], io);
    expect(out.stdout).toMatch(new RegExp(`profile of scripted-model-7b: measured ${new Date().toISOString().slice(0, 10)}: tier LARGE, quality 14/14`));
  });

  it('`tsuka benchmark --reset` forgets the measured tier: the next start takes it from the name again', async () => {
    const target = await serverAnswering(largeModelReply, 'scripted-model-7b');
    const { io, out } = await cliOn(target);
    expect(await main(['benchmark'], io)).toBe(0);
    const maskSecrets = (text: string) => text;
    const tierAtStart = async () => {
      const engine = await createEngine({ config: testAppConfig(home!, target.baseURL), logger: silentLogger, maskSecrets });
      const tier = engine.tier;
      await engine.close();
      return tier;
    };
    expect(await tierAtStart()).toBe('LARGE');
    out.stdout = '';
    expect(await main(['benchmark', '--reset'], io)).toBe(0);
    expect(out.stdout).toBe(
      'Profile of scripted-model-7b removed: it runs as tier SMALL (from its name) from the next start. `tsuka benchmark` measures it again.\n',
    );
    expect(await tierAtStart()).toBe('SMALL');
    out.stdout = '';
    expect(await main(['benchmark', '--reset'], io)).toBe(0);
    expect(out.stdout).toBe('No stored profile for scripted-model-7b: its tier is SMALL (from its name).\n');
    expect(await main(['benchmark', '--forget'], io)).toBe(2);
    expect(out.stderr).toMatch(/unknown argument --forget \(usage: tsuka benchmark \[--reset\]\)/);
  });
});
