/** `TSUKA_LLM_BASE_URL` with one URL or several, comma-separated (issue 13). */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { parseModelServerUrls } from '../../../src/config/model-servers-config.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'tsuka-servers-config-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const load = (environment: NodeJS.ProcessEnv) => loadConfig({ environment, workingDirectory: directory, rootDirectory: directory });

function parse(raw: string | undefined): { servers: string[]; problems: string[] } {
  const problems: string[] = [];
  return { servers: parseModelServerUrls(raw, problems), problems };
}

describe('TSUKA_LLM_BASE_URL', () => {
  it('unset or empty: no server (discovery)', () => {
    expect(parse(undefined)).toEqual({ servers: [], problems: [] });
    expect(parse(' , ')).toEqual({ servers: [], problems: [] });
    const config = load({});
    expect(config.llm.baseURL).toBeUndefined();
    expect(config.llm.baseURLs).toEqual([]);
  });

  it('one URL: the only server, as before', () => {
    const config = load({ TSUKA_LLM_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(config.llm.baseURL).toBe('http://127.0.0.1:11434/v1');
    expect(config.llm.baseURLs).toEqual(['http://127.0.0.1:11434/v1']);
    expect(parse('  https://openrouter.ai/api/v1/  ').servers).toEqual(['https://openrouter.ai/api/v1']);
  });

  it('several: trimmed, in order, the first is the primary; a trailing comma is ignored', () => {
    const config = load({ TSUKA_LLM_BASE_URL: ' http://10.0.0.1:8080/v1 ,http://10.0.0.2:8080/v1/, http://gpu3.local:8000/v1,' });
    expect(config.llm.baseURLs).toEqual(['http://10.0.0.1:8080/v1', 'http://10.0.0.2:8080/v1', 'http://gpu3.local:8000/v1']);
    expect(config.llm.baseURL).toBe('http://10.0.0.1:8080/v1');
  });

  it('names each bad entry in one line, and a server listed twice', () => {
    expect(parse('localhost:11434').problems).toEqual(['TSUKA_LLM_BASE_URL="localhost:11434" is not a valid http(s) URL: use e.g. http://127.0.0.1:11434/v1.']);
    const { servers, problems } = parse('http://a:1/v1, ftp://b/v1, nonsense, http://a:1/v1/');
    expect(servers).toEqual(['http://a:1/v1']);
    expect(problems).toEqual([
      'TSUKA_LLM_BASE_URL entry 2 ("ftp://b/v1") is not a valid http(s) URL: list servers as http://127.0.0.1:11434/v1,http://10.0.0.2:11434/v1.',
      'TSUKA_LLM_BASE_URL entry 3 ("nonsense") is not a valid http(s) URL: list servers as http://127.0.0.1:11434/v1,http://10.0.0.2:11434/v1.',
      'TSUKA_LLM_BASE_URL lists http://a:1/v1 twice: list each model server once.',
    ]);
    expect(() => load({ TSUKA_LLM_BASE_URL: 'http://a:1/v1,bad' })).toThrow(ConfigError);
  });

  it('tsuka.config.json takes the comma-separated form or a list', async () => {
    await writeFile(path.join(directory, 'tsuka.config.json'), JSON.stringify({ llmBaseUrl: ['http://a:1/v1', 'http://b:2/v1'] }));
    expect(load({}).llm.baseURLs).toEqual(['http://a:1/v1', 'http://b:2/v1']);
    await writeFile(path.join(directory, 'tsuka.config.json'), JSON.stringify({ llmBaseUrl: 'http://a:1/v1,http://b:2/v1' }));
    expect(load({}).llm.baseURLs).toEqual(['http://a:1/v1', 'http://b:2/v1']);
  });
});
