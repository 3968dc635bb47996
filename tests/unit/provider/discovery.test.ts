import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderEntry } from '../../../src/core/provider/catalogue.js';
import { discoverModel } from '../../../src/core/provider/discovery.js';
import { probeServer } from '../../../src/core/provider/probe-server.js';

// Fake hosts: nock intercepts them, and with net connect disabled nothing leaves the machine.
const catalogue: ProviderEntry[] = [
  { id: 'ollama', displayName: 'Ollama', class: 'LOCAL', kind: 'ollama', baseURL: 'http://ollama.test:11434/v1', defaultModel: 'qwen2.5-coder:7b' },
  { id: 'llama-cpp', displayName: 'llama.cpp', class: 'LOCAL', kind: 'llama-cpp', baseURL: 'http://llama.test:8080/v1', defaultModel: 'default' },
  { id: 'lm-studio', displayName: 'LM Studio', class: 'LOCAL', kind: 'lm-studio', baseURL: 'http://lmstudio.test:1234/v1', defaultModel: 'x' },
  { id: 'vllm', displayName: 'vLLM', class: 'LOCAL', kind: 'vllm', baseURL: 'http://vllm.test:8000/v1', defaultModel: 'y' },
  {
    id: 'cloud',
    displayName: 'Cloud',
    class: 'CLOUD',
    kind: 'openai',
    baseURL: 'http://cloud.test/api/v1',
    defaultModel: 'big/model',
    apiKeyEnv: 'CLOUD_API_KEY',
  },
];
const FAST = { probeTimeoutMs: 300 };

const modelList = (...entries: object[]) => ({ object: 'list', data: entries });

function ollama(options: { loaded?: string[]; show?: object } = {}) {
  const scope = nock('http://ollama.test:11434')
    .get('/v1/models')
    .reply(
      200,
      modelList(
        { id: 'qwen2.5-coder:7b', object: 'model', created: 1735000000, owned_by: 'library' },
        { id: 'llama3.1:8b', object: 'model', created: 1735000000, owned_by: 'library' },
        { id: 'nomic-embed-text:latest', object: 'model', created: 1735000000, owned_by: 'library' },
      ),
    )
    .get('/api/ps')
    .reply(200, {
      models: (options.loaded ?? []).map((name) => ({
        name,
        model: name,
        size: 6654289920,
        digest: 'a80c4f17acd5',
        details: { format: 'gguf', family: 'llama', parameter_size: '8.0B', quantization_level: 'Q4_K_M' },
        expires_at: '2025-06-01T10:00:00Z',
        size_vram: 6654289920,
      })),
    });
  if (options.show) scope.post('/api/show').reply(200, options.show);
  return scope;
}

function llamaServer(nCtx = 16384) {
  return nock('http://llama.test:8080')
    .get('/v1/models')
    .reply(200, modelList({ id: 'gemma-3-27b-it-Q4_K_M.gguf', object: 'model', created: 1735000000, owned_by: 'llamacpp', meta: { n_ctx_train: 131072 } }))
    .get('/props')
    .reply(200, { default_generation_settings: { n_ctx: nCtx, temperature: 0.8 }, total_slots: 1, model_path: '/models/gemma-3-27b-it-Q4_K_M.gguf' });
}

beforeAll(() => {
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(() => {
  nock.abortPendingRequests();
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});

describe('discoverModel', () => {
  it('uses the configured endpoint and model first, without probing the catalogue', async () => {
    nock('http://custom.test:9000')
      .get('/v1/models')
      .reply(200, modelList({ id: 'my-model', object: 'model', owned_by: 'me' }));
    const untouched = ollama({ loaded: ['llama3.1:8b'] });
    const result = await discoverModel({
      catalogue,
      configured: { baseURL: 'http://custom.test:9000/v1', modelId: 'my-model' },
      apiKeys: {},
      ...FAST,
    });
    expect(result).toMatchObject({ providerId: 'custom', baseURL: 'http://custom.test:9000/v1', modelId: 'my-model', class: 'CLOUD' });
    expect(untouched.isDone()).toBe(false);
  });

  it('never replaces a configured endpoint that does not answer: the local servers receive nothing', async () => {
    const untouched = ollama({ loaded: ['llama3.1:8b'] });
    const result = await discoverModel({ catalogue, configured: { baseURL: 'http://gone.test:9000/v1' }, apiKeys: {}, ...FAST });
    expect(result).toBeNull();
    expect(untouched.isDone()).toBe(false);
  });

  it('uses a CLOUD provider when the configured endpoint points at it, with its own key variable', async () => {
    let authorization: string | undefined;
    nock('http://cloud.test')
      .get('/api/v1/models')
      .reply(function reply() {
        authorization = this.req.headers.authorization as string | undefined;
        return [200, modelList({ id: 'big/model', object: 'model' })];
      });
    const result = await discoverModel({ catalogue, configured: { baseURL: 'http://cloud.test/api/v1' }, apiKeys: { CLOUD_API_KEY: 'sk-test' }, ...FAST });
    expect(result).toMatchObject({ providerId: 'cloud', class: 'CLOUD', modelId: 'big/model' });
    expect(authorization).toBe('Bearer sk-test');
  });

  it('prefers the model Ollama already holds in memory (/api/ps) and reads its context from /api/show', async () => {
    let shown: unknown;
    ollama({ loaded: ['llama3.1:8b'] })
      .post('/api/show', (body: unknown) => {
        shown = body;
        return true;
      })
      .reply(200, {
        parameters: 'stop "<|eot_id|>"',
        details: { family: 'llama' },
        model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072, 'llama.embedding_length': 4096 },
      });
    const result = await discoverModel({ catalogue, apiKeys: {}, ...FAST });
    expect(result).toMatchObject({ providerId: 'ollama', modelId: 'llama3.1:8b', loaded: true, contextWindow: 131072 });
    expect(shown).toEqual({ model: 'llama3.1:8b' });
  });

  it("prefers Ollama's num_ctx parameter over the architecture's maximum", async () => {
    ollama({
      show: {
        parameters: 'num_ctx                        8192\nstop "<|im_end|>"',
        model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32768 },
      },
    });
    const result = await discoverModel({ catalogue, apiKeys: {}, ...FAST });
    expect(result).toMatchObject({ modelId: 'qwen2.5-coder:7b', loaded: false, contextWindow: 8192 });
  });

  it("reads llama-server's context from /props and counts its single model as loaded", async () => {
    llamaServer(16384);
    const result = await discoverModel({ catalogue, apiKeys: {}, ...FAST });
    expect(result).toMatchObject({ providerId: 'llama-cpp', modelId: 'gemma-3-27b-it-Q4_K_M.gguf', loaded: true, contextWindow: 16384 });
  });

  it("reads vLLM's max_model_len from /v1/models", async () => {
    nock('http://vllm.test:8000')
      .get('/v1/models')
      .reply(
        200,
        modelList({ id: 'Qwen/Qwen2.5-Coder-7B-Instruct', object: 'model', owned_by: 'vllm', root: 'Qwen/Qwen2.5-Coder-7B-Instruct', max_model_len: 32768 }),
      );
    const result = await discoverModel({ catalogue, apiKeys: {}, ...FAST });
    expect(result).toMatchObject({ providerId: 'vllm', modelId: 'Qwen/Qwen2.5-Coder-7B-Instruct', contextWindow: 32768 });
  });

  it("picks LM Studio's loaded model from /api/v0/models", async () => {
    nock('http://lmstudio.test:1234')
      .get('/v1/models')
      .reply(
        200,
        modelList(
          { id: 'qwen2.5-7b-instruct', object: 'model', owned_by: 'organization_owner' },
          { id: 'mistral-small-24b', object: 'model', owned_by: 'organization_owner' },
        ),
      )
      .get('/api/v0/models')
      .reply(200, {
        object: 'list',
        data: [
          { id: 'qwen2.5-7b-instruct', object: 'model', type: 'llm', state: 'not-loaded', max_context_length: 32768 },
          { id: 'mistral-small-24b', object: 'model', type: 'llm', state: 'loaded', max_context_length: 32768, loaded_context_length: 8192 },
        ],
      });
    const result = await discoverModel({ catalogue, apiKeys: {}, ...FAST });
    expect(result).toMatchObject({ providerId: 'lm-studio', modelId: 'mistral-small-24b', loaded: true, contextWindow: 8192 });
  });

  it('prefers a server with a loaded model over an earlier catalogue entry without one', async () => {
    ollama({ show: { model_info: {} } });
    llamaServer();
    const result = await discoverModel({ catalogue, apiKeys: {}, ...FAST });
    expect(result?.providerId).toBe('llama-cpp');
  });

  it('skips a server that never answers within the probe timeout', async () => {
    // Without the timeout this test would wait a minute and fail on the test timeout.
    nock('http://vllm.test:8000')
      .get('/v1/models')
      .delay(60_000)
      .reply(200, modelList({ id: 'slow', object: 'model' }));
    llamaServer();
    const result = await discoverModel({ catalogue, apiKeys: {}, ...FAST });
    expect(result?.providerId).toBe('llama-cpp');
  });

  it('returns null when nothing answers, and never discovers a CLOUD provider even with its key set', async () => {
    const cloud = nock('http://cloud.test')
      .get('/api/v1/models')
      .reply(200, modelList({ id: 'big/model', object: 'model' }));
    expect(await discoverModel({ catalogue, apiKeys: {}, ...FAST })).toBeNull();
    expect(await discoverModel({ catalogue, apiKeys: { CLOUD_API_KEY: 'sk-test' }, ...FAST })).toBeNull();
    expect(cloud.isDone()).toBe(false);
  });
});

describe('probeServer', () => {
  it('says which step failed for an unreachable server', async () => {
    const probe = await probeServer({ baseURL: 'http://nobody.test:1/v1', timeoutMs: 300 });
    expect(probe.reachable).toBe(false);
    expect(probe.steps).toEqual([{ step: 'reachable', ok: false, message: expect.stringMatching(/^http:\/\/nobody\.test:1\/v1 is not reachable/) }]);
  });

  it('recognises an unknown server from its answers and reports every step', async () => {
    nock('http://mystery.test:5000')
      .get('/v1/models')
      .reply(200, modelList({ id: 'model.gguf', object: 'model', owned_by: 'someone' }))
      .get('/props')
      .reply(200, { default_generation_settings: { n_ctx: 4096 } })
      .get('/api/ps')
      .reply(404, 'Not Found')
      .get('/api/v0/models')
      .reply(404, 'Not Found');
    const probe = await probeServer({ baseURL: 'http://mystery.test:5000/v1', timeoutMs: 300 });
    expect(probe).toMatchObject({ kind: 'llama-cpp', reachable: true, modelId: 'model.gguf', loaded: true, contextWindow: 4096 });
    expect(probe.steps.map((step) => [step.step, step.ok])).toEqual([
      ['reachable', true],
      ['models', true],
      ['loaded', true],
      ['context', true],
    ]);
  });

  it('uses an explicitly configured model even when the server does not list it, and says so', async () => {
    nock('http://custom.test:9000')
      .get('/v1/models')
      .reply(200, modelList({ id: 'other', object: 'model' }));
    const probe = await probeServer({ baseURL: 'http://custom.test:9000/v1', kind: 'openai', modelId: 'wanted', timeoutMs: 300 });
    expect(probe.modelId).toBe('wanted');
    expect(probe.steps.find((step) => step.step === 'loaded')?.message).toContain('does not list it');
  });
});
