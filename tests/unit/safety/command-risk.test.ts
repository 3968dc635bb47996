import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyCommand } from '../../../src/core/safety/command-risk.js';
import type { RiskLevel } from '../../../src/core/tools/tool.js';

let workspaceRoot: string;
let outsideDir: string;

beforeAll(async () => {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-risk-'));
  workspaceRoot = path.join(base, 'workspace');
  outsideDir = path.join(base, 'outside');
  await fs.mkdir(path.join(workspaceRoot, 'src', 'lib'), { recursive: true });
  await fs.mkdir(outsideDir);
  await fs.writeFile(path.join(workspaceRoot, 'file.txt'), 'hello\n');
  await fs.writeFile(path.join(workspaceRoot, 'src', 'app.ts'), 'export {};\n');
  await fs.writeFile(path.join(outsideDir, 'secret.txt'), 'secret\n');
  await fs.symlink(path.join(outsideDir, 'secret.txt'), path.join(workspaceRoot, 'link-to-secret'));
  await fs.symlink(outsideDir, path.join(workspaceRoot, 'link-to-outside-dir'));
  // The reviewer's reproduction: a vendored folder holding a link to a folder outside.
  await fs.mkdir(path.join(workspaceRoot, 'vendor'));
  await fs.symlink(outsideDir, path.join(workspaceRoot, 'vendor', 'lib'));
  await fs.mkdir(path.join(workspaceRoot, 'docs', 'guide'), { recursive: true });
  await fs.writeFile(path.join(workspaceRoot, 'docs', 'readme.md'), '# hi\n');
  await fs.symlink(path.join(workspaceRoot, 'file.txt'), path.join(workspaceRoot, 'docs', 'link-inside.txt'));
});

afterAll(async () => {
  await fs.rm(path.dirname(workspaceRoot), { recursive: true, force: true });
});

const S: RiskLevel = 'SAFE';
const R: RiskLevel = 'RESTRICTED';
const D: RiskLevel = 'DANGEROUS';

const CASES: readonly (readonly [string, RiskLevel])[] = [
  // Read-only inspection of the workspace (design §6.8: `ls -la` is SAFE).
  ['ls', S],
  ['ls -la', S],
  ['ls -la src', S],
  ['ls --color=auto src/lib', S],
  ['pwd', S],
  ['cat file.txt', S],
  ['cat src/../file.txt', S],
  ['head -n 5 src/app.ts', S],
  ['tail -n 20 file.txt', S],
  ['wc -l src/*.ts', S],
  ['stat file.txt', S],
  ['file src/app.ts', S],
  ['du -sh src', S],
  ['grep -rn "TODO" src', S],
  ['grep ";" file.txt', S],
  ['grep "a && b | c > d" file.txt', S],
  ["grep -e '$HOME' file.txt", S],
  ['rg -n useState src', S],
  ["find . -name '*.ts'", S],
  ['find src -type f -maxdepth 2', S],
  ['git status', S],
  ['git log --oneline -n 10', S],
  ['git diff HEAD~1 -- src', S],
  ['git show HEAD:src/app.ts', S],
  ['git branch -a', S],
  ['echo hello world', S],
  ['echo "a && b"', S],
  ["echo 'single; quoted | text'", S],
  ['echo price: 5$', S],
  ['date', S],
  ['date +%Y-%m-%d', S],
  ['whoami', S],
  ['uname -a', S],
  ['node --version', S],
  ['npm ls', S],
  ['git --version', S],
  // Builds, tests and ordinary workspace changes.
  ['npm test', R],
  ['npm run build', R],
  ['npm install', R],
  ['npm ci', R],
  ['npx vitest run', R],
  ['npx tsc --noEmit', R],
  ['npx eslint src', R],
  ['node src/app.js', R],
  ['python script.py', R],
  ['python -m pytest', R],
  ['pytest tests', R],
  ['make', R],
  ['cargo build', R],
  ['cargo test', R],
  ['go build ./...', R],
  ['go test ./...', R],
  ['tsc -p .', R],
  ['git add src/app.ts', R],
  ['git commit -m "fix: handle /etc paths"', R],
  ['git checkout -b feature', R],
  ['git switch main', R],
  ['git stash', R],
  ['git init', R],
  ['git branch -d merged-feature', R],
  // Options that read the list of files from a file, and listings that follow links (issue 17).
  ['find . -files0-from list.txt', D],
  ['find -files0-from list.txt', D],
  ['du --files0-from=list.txt', D],
  ['du -X list.txt src', D],
  ['wc --files0-from list.txt', D],
  ['wc --files0-fro=list.txt', D],
  ['wc -l --files0-from=-', D],
  ['file -f list.txt', D],
  ['file -bf list.txt', D],
  ['file --files-from list.txt', D],
  ['tar -T list.txt -cf out.tar', D],
  ['tar --files-from=list.txt -cf out.tar', D],
  ['sort --files0-from=list.txt', D],
  ['git add --pathspec-from-file=list.txt', D],
  ['git commit --pathspec-from-file list.txt -m x', D],
  ['ls -L', D],
  ['ls -RL', D],
  ['ls -lL src', D],
  ['ls --dereference docs', D],
  ['ls -R link-to-outside-dir', D],
  ['find -L .', D],
  ['find . -follow -name x', D],
  ['du -L src', D],
  ['du -shL .', D],
  ['ls -R', S],
  ['ls -lR docs', S],
  ['wc -l file.txt', S],
  ['file src/app.ts', S],
  ['find . -type l', S],
  // Discarding git commands are DANGEROUS like `git reset --hard` (issue 17).
  ['git branch -D old-feature', D],
  ['git branch --delete --force old-feature', D],
  ['git branch -M main', D],
  ['git checkout -f', D],
  ['git checkout --force main', D],
  ['git checkout .', D],
  ['git checkout -- src/app.ts', D],
  ['git checkout main -- file.txt', D],
  ['git checkout file.txt', D],
  ['git checkout -p', D],
  ['git checkout --theirs file.txt', D],
  ['git checkout -B main', D],
  ['git checkout --pathspec-from-file=list.txt', D],
  ['git checkout main', R],
  ['git switch main', R],
  ['git switch --discard-changes main', D],
  ['git switch -f main', D],
  ['git switch -C main', D],
  ['git restore file.txt', D],
  ['git restore --staged file.txt', D],
  ['git stash drop', D],
  ['git stash drop stash@{0}', D],
  ['git stash clear', D],
  ['git stash push -m "drop"', R],
  ['git stash pop', R],
  ['git clean -f', D],
  ['git clean -fdx', D],
  ['git reset --hard HEAD~1', D],
  ['git reset HEAD~1', R],
  ['mkdir -p src/new', R],
  ['touch notes.md', R],
  ['cp file.txt copy.txt', R],
  ['mv file.txt src/moved.txt', R],
  // Shell operators, substitutions and expansions (every bypass in the brief).
  ['echo $SECRET', D],
  ['echo ${SLACK_BOT_TOKEN}', D],
  ['echo "$HOME"', D],
  ['echo $(whoami)', D],
  ['echo "$(cat /etc/passwd)"', D],
  ['echo `id`', D],
  ['ls; rm -rf /', D],
  ['ls && rm -rf src', D],
  ['ls || curl evil.example', D],
  ['cat file.txt | sh', D],
  ['sleep 1 &', D],
  ['echo hi > out.txt', D],
  ['echo hi >> out.txt', D],
  ['cat < /etc/passwd', D],
  ['ls 2> errors.txt', D],
  ['cat <<EOF', D],
  ['diff <(ls) <(ls src)', D],
  ['ls\nrm -rf /', D],
  ['ls # harmless?', D],
  ["echo $'\\x41'", D],
  ['FOO=bar ls', D],
  ['echo "unterminated', D],
  // Paths outside the workspace (absolute, `..`, `~`, symlinks, globs).
  ['cat /etc/passwd', D],
  ['cat ~/.ssh/id_rsa', D],
  ['head ../outside/secret.txt', D],
  ['cat src/../../outside/secret.txt', D],
  ['ls ~', D],
  ['ls /', D],
  ['cat /*', D],
  ['cat .*/secret.txt', D],
  ['ls {src,/etc}', D],
  ['cat link-to-secret', D],
  ['ls link-to-outside-dir/', D],
  ['grep -r root /etc', D],
  ['grep -f /etc/shadow file.txt', D],
  ['grep --file=/etc/shadow file.txt', D],
  ['ls -C..', D],
  ['du -L src', D],
  ['grep -R x src', D],
  ['git diff --no-index /etc/passwd file.txt', D],
  ['/bin/cat file.txt', D],
  // Wildcards that could expand to a link leading outside (vendor/lib → outside).
  ['cat vendor/lib/secret.txt', D],
  ['cat vendor/*/secret.txt', D],
  ['cat vendor/l?b/secret.txt', D],
  ['cat vendor/[l]ib/secret.txt', D],
  ['grep -r root vendor/*', D],
  ['ls vendor/l*', D],
  ['cat */secret.txt', D],
  ['cat src/*/app.ts', D],
  ['ls *', D],
  ['ls vendor/lib/*', D],
  ['ls docs/*.md', S],
  ['ls docs/*', S],
  ['grep -r hi docs/*', S],
  ['ls docs/missing/*.md', S],
  // Dangerous programs and flags.
  ['rm file.txt', D],
  ['rm -rf src', D],
  ['sudo ls', D],
  ['curl https://example.com', D],
  ['wget https://example.com', D],
  ['ssh host', D],
  ['scp file.txt host:', D],
  ['chmod +x file.txt', D],
  ['chown root file.txt', D],
  ['dd if=file.txt of=copy.txt', D],
  ['env', D],
  ['printenv', D],
  ['printenv SLACK_BOT_TOKEN', D],
  ['export FOO=1', D],
  ['set', D],
  ['kill 1', D],
  ['xargs rm', D],
  ['eval ls', D],
  ['exec ls', D],
  ['sh -c ls', D],
  ['bash -c "ls"', D],
  ['python -c "print(1)"', D],
  ['python3 -c print', D],
  ['python', D],
  ['node -e "require(\'fs\')"', D],
  ['node -p 1+1', D],
  ['node --eval=1', D],
  ['node', D],
  ['find . -exec cat {} ;', D],
  ["find . -exec cat '{}' '+'", D],
  ['find . -exec cat {} \\;', D],
  ['find . -execdir ls', D],
  ['find . -delete', D],
  ['find . -ok rm', D],
  ['find . -fprint out.txt', D],
  ['find / -name passwd', D],
  ['rg --pre=cat x src', D],
  ['git push', D],
  ['git push origin main', D],
  ['git reset --hard', D],
  ['git reset --hard HEAD~3', D],
  ['git clean -fdx', D],
  ['git -c core.pager=sh log', D],
  ['git -c alias.x=!sh x', D],
  ['git -C /etc status', D],
  ['git config user.email x', D],
  ['git diff --output=/tmp/out.txt', D],
  ['git diff --output out.txt', D],
  ['git diff --outp=out.txt', D],
  ['git diff --ext-diff', D],
  ['git log -p --ext-diff', D],
  ['git fetch', D],
  ['npm publish', D],
  ['npm install -g typescript', D],
  ['npm --prefix /tmp install', D],
  ['npm exec something', D],
  ['npx some-random-package', D],
  ['npx --yes cowsay hi', D],
  ['date -s 2020-01-01', D],
  ['awk "{print}" file.txt', D],
  ['ln -s /etc etc', D],
  ['unknown-tool --help', D],
  ['', D],
  ['   ', D],
];

describe('classifyCommand', () => {
  it('covers at least 70 commands', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(70);
  });

  it.each(CASES)('%j → %s', (command, expected) => {
    const risk = classifyCommand(command, { workspaceRoot });
    expect(risk.level, risk.reason).toBe(expected);
    expect(risk.reason.length).toBeGreaterThan(5);
  });

  it('resolves paths against cwd and refuses a cwd outside the workspace', () => {
    expect(classifyCommand('cat app.ts', { workspaceRoot, cwd: 'src' }).level).toBe('SAFE');
    expect(classifyCommand('cat ../file.txt', { workspaceRoot, cwd: 'src' }).level).toBe('SAFE');
    expect(classifyCommand('cat ../../x', { workspaceRoot, cwd: 'src' }).level).toBe('DANGEROUS');
    expect(classifyCommand('ls', { workspaceRoot, cwd: outsideDir }).level).toBe('DANGEROUS');
    expect(classifyCommand('ls', { workspaceRoot, cwd: path.join(workspaceRoot, 'src') }).level).toBe('SAFE');
  });

  it('keeps a wildcard SAFE in an ordinary folder and explains a link-reaching one', () => {
    expect(classifyCommand('ls *.md', { workspaceRoot, cwd: 'docs' }).level).toBe('SAFE');
    expect(classifyCommand('ls *', { workspaceRoot, cwd: 'vendor' }).reason).toMatch(/wildcards could match a link that leads outside the workspace/);
    expect(classifyCommand('cat vendor/*/passwd', { workspaceRoot }).reason).toMatch(/wildcard in a folder name/);
  });

  it('accepts absolute paths inside the workspace', () => {
    expect(classifyCommand(`cat ${path.join(workspaceRoot, 'file.txt')}`, { workspaceRoot }).level).toBe('SAFE');
  });

  it('gives reasons a person can read on the approval prompt', () => {
    expect(classifyCommand('echo $SECRET', { workspaceRoot }).reason).toMatch(/variable|substitut/i);
    expect(classifyCommand('cat /etc/passwd', { workspaceRoot }).reason).toContain('/etc/passwd');
    expect(classifyCommand('git -c core.pager=sh log', { workspaceRoot }).reason).toMatch(/configuration/);
    expect(classifyCommand('frobnicate', { workspaceRoot }).reason).toMatch(/not a command TSUKA knows/);
  });
});
