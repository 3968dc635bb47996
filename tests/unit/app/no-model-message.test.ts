import { describe, expect, it } from 'vitest';
import { noModelMessage } from '../../../src/app/no-model-message.js';
import { loadConfig } from '../../../src/config/load-config.js';

const config = (environment: NodeJS.ProcessEnv) => loadConfig({ environment, workingDirectory: '/tmp', rootDirectory: '/tmp' });

describe('the no-model message', () => {
  it('while TSUKA runs, setting TSUKA_LLM_BASE_URL is said to need a restart (settings are read at start)', () => {
    expect(noModelMessage(config({}), 10_000)).toMatch(/or set TSUKA_LLM_BASE_URL .* and restart TSUKA \(settings are read at start\)/);
    // A one-off command (`tsuka ask`) reads it at its next start anyway.
    expect(noModelMessage(config({}))).not.toMatch(/restart/);
  });
});
