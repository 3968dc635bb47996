/**
 * Issue 29, the attack: "Approve for this run" on a RESTRICTED `make test` (or `npm test`, `pytest`,
 * `npx vitest`, …) must not cover the same command with an option that makes it run other code.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyCommand } from '../../../src/core/safety/command-risk.js';
import { createPermissionManager } from '../../../src/core/safety/permission-manager.js';
import type { PermissionPrompt, PermissionRequest } from '../../../src/core/safety/permission-port.js';

let root: string;
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-code-options-'));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

let sequence = 0;
function commandRequest(command: string, runId: string): PermissionRequest {
  const risk = classifyCommand(command, { workspaceRoot: root });
  if (risk.level === 'SAFE') throw new Error(`${command} is SAFE`);
  sequence += 1;
  return {
    id: `req-${sequence}`,
    runId,
    toolCallId: `call-${sequence}`,
    toolName: 'execute_command',
    riskLevel: risk.level,
    reason: risk.reason,
    summary: `execute_command ${command}`,
    details: [],
    agentName: 'geordi',
    allowForRun: risk.level === 'RESTRICTED',
    ...(risk.grantScope !== undefined ? { grantScope: risk.grantScope } : {}),
  };
}

function approvesForRun(): PermissionPrompt & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    ask: async (request) => (asked.push(request.summary.replace(/^execute_command /, '')), { outcome: 'approved-for-run', decidedBy: 'slack:U1' }),
  };
}

/** [approved for the run first, then the attack that must ask again, the option its reason names]. */
const ATTACKS: [string, string, string][] = [
  ['make test', 'make test -f evil.mk', '`-f`'],
  ['make test', 'make -f evil.mk test', '`-f`'],
  ['make test', 'make test -fevil.mk', '`-f`'],
  ['make test', 'make -kf evil.mk test', '`-f`'],
  ['make test', 'make test --file=evil.mk', '`--file`'],
  ['make test', 'make test --file evil.mk', '`--file`'],
  ['make test', 'make test --makefile=evil.mk', '`--makefile`'],
  ['make test', 'make test --makef=evil.mk', '`--makefile`'],
  ['make test', 'make test -C sub', '`-C`'],
  ['make test', 'make test --eval=x', '`--eval`'],
  ['make test', 'make test SHELL=./evil.sh', 'SHELL'],
  ['npm test', 'npm test --script-shell=./evil.sh', '`--script-shell`'],
  ['npm test', 'npm test --script-shell ./evil.sh', '`--script-shell`'],
  ['npm test', 'npm test --node-options=--require=./evil.js', '`--node-options`'],
  ['npm test', 'npm test --userconfig=evil.npmrc', '`--userconfig`'],
  ['npm test', 'npm test -w evil', '`-w`'],
  ['npm test', 'npm test -- --config evil.config.js', '`--config`'],
  ['npm test', 'npm test -- --setupFiles=./evil.js', '`--setupFiles`'],
  ['npm test', 'npm test -- -p evil_plugin', '`-p`'],
  ['npm run build', 'npm run build --script-shell=./evil.sh', '`--script-shell`'],
  ['npm install', 'npm install evil-package', 'install scripts'],
  ['npm install', 'npm install --registry=http://127.0.0.1:1/', '`--registry`'],
  ['pytest', 'pytest -p evil_plugin', '`-p`'],
  ['pytest', 'pytest -pevil_plugin', '`-p`'],
  ['pytest', 'pytest -c evil.ini', '`-c`'],
  ['pytest', 'pytest -o addopts=-pevil', '`-o`'],
  ['python -m pytest', 'python -m pytest -p evil_plugin', '`-p`'],
  ['npx vitest', 'npx vitest --config evil.config.ts', '`--config`'],
  ['npx vitest', 'npx vitest -c evil.config.ts', '`-c`'],
  ['npx vitest run', 'npx vitest run --config=evil.config.ts', '`--config`'],
  ['npx vitest', 'npx vitest --root evil', '`--root`'],
  ['npx eslint src', 'npx eslint --rulesdir evil src', '`--rulesdir`'],
  ['npx eslint src', 'npx eslint -c evil.js src', '`-c`'],
  ['npx eslint src', 'npx eslint -f ./evil-formatter.js src', '`-f`'],
  ['npx tsc', 'npx tsc -p evil.json', '`-p`'],
  ['node app.js', 'node --env-file=evil.env app.js', '`--env-file`'],
  ['node app.js', 'node --conditions=evil app.js', '`--conditions`'],
  ['cargo test', 'cargo test --config target.x.runner=./evil', '`--config`'],
  ['cargo test', 'cargo test --manifest-path evil/Cargo.toml', '`--manifest-path`'],
  ['go test', 'go test -exec ./evil ./...', '`-exec`'],
  ['go test', 'go test -toolexec=./evil ./...', '`-toolexec`'],
  ['go vet', 'go vet -vettool=./evil ./...', '`-vettool`'],
];

describe('"Approve for this run" excludes options that choose other code (issue 29)', () => {
  it.each(ATTACKS)('approving `%s` for the run does not cover `%s`', async (approved, attack, named) => {
    const runId = `run-${approved}-${attack}`;
    const prompt = approvesForRun();
    const manager = createPermissionManager({ prompt });
    await manager.check(commandRequest(approved, runId), new AbortController().signal);
    await manager.check(commandRequest(attack, runId), new AbortController().signal);
    expect(prompt.asked).toEqual([approved, attack]);
    const risk = classifyCommand(attack, { workspaceRoot: root });
    expect(['RESTRICTED', 'DANGEROUS']).toContain(risk.level);
    expect(risk.reason).toContain(named);
    // Approving the attack for the run covers that exact line only, not the plain command nor another file.
    if (risk.level === 'RESTRICTED') expect(risk.grantScope).toBe(attack);
  });

  it('options that preload code are never covered by a grant (DANGEROUS): node -r/--require/--import/--loader, jest and others unknown', async () => {
    for (const attack of [
      'node -r ./evil.js app.js',
      'node --require=./evil.js app.js',
      'node --import ./evil.mjs app.js',
      'node --loader ./evil.mjs app.js',
      'node --experimental-loader=./evil.mjs app.js',
      'jest --config evil.js',
      'npx jest --config evil.js',
      'vitest --config evil.ts',
      'eslint --rulesdir evil src',
    ]) {
      expect(classifyCommand(attack, { workspaceRoot: root }), attack).toMatchObject({ level: 'DANGEROUS' });
    }
  });

  it('the plain forms keep their scope: approved once, asked once (a make variable is a line of its own)', async () => {
    const prompt = approvesForRun();
    const manager = createPermissionManager({ prompt });
    for (const command of [
      'make test',
      'make test',
      'make test V=1',
      'npm test',
      'npm test',
      'pytest -q',
      'pytest tests/a_test.py',
      'npx vitest run',
      'npm install',
    ]) {
      await manager.check(commandRequest(command, 'run-plain'), new AbortController().signal);
    }
    expect(prompt.asked).toEqual(['make test', 'make test V=1', 'npm test', 'pytest -q', 'npx vitest run', 'npm install']);
  });
});
