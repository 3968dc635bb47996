/**
 * A tiny Node project for the staging tests (issue 25): a git repository with one commit, a fake
 * dependency in `node_modules` (ignored by git, as usual) whose `.bin` script runs the project's
 * test through `npm test` — no network, no install.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

const FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'tiny', version: '1.0.0', private: true, scripts: { test: 'fake-test' } }, null, 2)}\n`,
  '.gitignore': 'node_modules/\n',
  'greet.js': 'module.exports = (name) => `Hello, ${name}!`;\n',
  'test.js': "const check = require('fake-assert');\ncheck(require('./greet')('team'));\n",
  'node_modules/fake-assert/package.json': `${JSON.stringify({ name: 'fake-assert', version: '1.0.0', main: 'index.js', bin: { 'fake-test': 'bin.js' } })}\n`,
  'node_modules/fake-assert/index.js':
    "module.exports = (value) => {\n  if (typeof value !== 'string') throw new Error('not a string');\n  console.log(`fake-assert says: ${value}`);\n};\n",
  'node_modules/fake-assert/bin.js': "#!/usr/bin/env node\nrequire(require('node:path').resolve('test.js'));\n",
};

/** Writes the project into `root` (created) and commits everything but `node_modules`. */
export async function writeTinyNodeProject(root: string): Promise<void> {
  for (const [relative, text] of Object.entries(FILES)) {
    await fs.mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await fs.writeFile(path.join(root, relative), text);
  }
  await fs.chmod(path.join(root, 'node_modules/fake-assert/bin.js'), 0o755);
  await fs.mkdir(path.join(root, 'node_modules/.bin'));
  await fs.symlink('../fake-assert/bin.js', path.join(root, 'node_modules/.bin/fake-test'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'tiny project');
}
