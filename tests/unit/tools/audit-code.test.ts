import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditCodeTool } from '../../../src/core/tools/impl/audit-code.js';
import { createTestToolContext, type TestToolContext } from './tool-test-context.js';

const FAKE_AWS_KEY = `AKIA${'Q7X2M9K4P1Z8W3N6'}`;
const FAKE_PASSWORD = 'hunter2-correct-horse';

let test: TestToolContext;
beforeEach(async () => {
  test = await createTestToolContext();
  await mkdir(join(test.root, 'src'));
  await mkdir(join(test.root, 'node_modules/pkg'), { recursive: true });
  await writeFile(join(test.root, 'src/calc.js'), 'export function calc(input) {\n  return eval(input);\n}\n');
  await writeFile(join(test.root, 'src/db.ts'), 'const q = `SELECT * FROM users WHERE id = ${id}`;\nconst ok = db.query("SELECT 1");\n');
  await writeFile(
    join(test.root, 'src/config.py'),
    `AWS_KEY = "${FAKE_AWS_KEY}"\npassword = "${FAKE_PASSWORD}"\nimport yaml\ndata = yaml.load(stream)\nsafe = yaml.load(stream, Loader=yaml.SafeLoader)\n`,
  );
  await writeFile(join(test.root, 'src/clean.ts'), 'export const sum = (a: number, b: number) => a + b;\n');
  await writeFile(join(test.root, 'node_modules/pkg/index.js'), 'eval("vendor");\n');
});
afterEach(() => test.cleanup());

describe('audit_code', () => {
  it('finds injected eval and a fake AWS key, grouped by severity with file:line', async () => {
    const result = await auditCodeTool.execute({}, test.context);
    const lines = result.output.split('\n');
    expect(lines[0]).toBe('audit_code .: 5 finding(s) in 4 file(s).');
    expect(lines).toContain('CRITICAL (1)');
    expect(lines).toContain('HIGH (4)');
    expect(result.output).toContain('src/calc.js:2 [eval] eval() runs arbitrary code: return eval(input);');
    expect(result.output).toMatch(/src\/config\.py:1 \[aws-access-key\] AWS access key id: AWS_KEY = "AKIA…\[masked\]"/);
    expect(result.output).toContain('src/db.ts:1 [sql-template]');
    expect(result.output).toContain('src/config.py:4 [yaml-load]');
    expect(result.output).not.toContain('config.py:5');
    expect(result.output).not.toContain('node_modules');
    expect(lines.indexOf('CRITICAL (1)')).toBeLessThan(lines.indexOf('HIGH (4)'));
  });

  it('never echoes secret values', async () => {
    const result = await auditCodeTool.execute({ targetPath: 'src' }, test.context);
    expect(result.output).toContain('[hardcoded-password]');
    expect(result.output).not.toContain(FAKE_AWS_KEY);
    expect(result.output).not.toContain(FAKE_PASSWORD);
    expect(result.output).not.toContain(FAKE_AWS_KEY.slice(4));
  });

  it('reports a clean scan and respects maxFiles', async () => {
    const clean = await auditCodeTool.execute({ targetPath: 'src/clean.ts' }, test.context);
    expect(clean.output).toBe('audit_code src/clean.ts: 0 finding(s) in 1 file(s). Nothing matched the injection and secret rules.');
    const limited = await auditCodeTool.execute({ maxFiles: 1 }, test.context);
    expect(limited.output).toContain('in 1 file(s)');
    expect(limited.output).toContain('[stopped after 1 files; raise maxFiles or narrow targetPath]');
  });
});
