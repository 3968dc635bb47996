import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

interface Instruction {
  keyword: string;
  argument: string;
}

/** Dockerfile instructions with line continuations joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const match = /^(\S+)\s*(.*)$/.exec(line);
      return { keyword: match?.[1]?.toUpperCase() ?? '', argument: match?.[2] ?? '' };
    });
}

const dockerfile = read('Dockerfile');
const all = instructions(dockerfile);
const lastFrom = all.map((instruction) => instruction.keyword).lastIndexOf('FROM');
const runtime = all.slice(lastFrom);
const find = (stage: Instruction[], keyword: string): Instruction[] => stage.filter((instruction) => instruction.keyword === keyword);

describe('Dockerfile', () => {
  it('is multi-stage with a slim Node 22 runtime', () => {
    expect(find(all, 'FROM').length).toBeGreaterThanOrEqual(2);
    expect(runtime[0]?.argument).toMatch(/^node:22-[a-z]+-slim\b/);
  });

  it('runs as the non-root user tsuka (uid 10001) in the runtime stage', () => {
    const users = find(runtime, 'USER');
    expect(users.at(-1)?.argument).toBe('tsuka');
    expect(find(runtime, 'RUN').some((instruction) => /useradd\b.*--uid 10001\b/.test(instruction.argument))).toBe(true);
  });

  it('starts under tini through the entrypoint script, defaulting to `start`', () => {
    expect(JSON.parse(find(runtime, 'ENTRYPOINT').at(-1)?.argument ?? 'null')).toEqual(['tini', '--', '/app/docker/entrypoint.sh']);
    expect(JSON.parse(find(runtime, 'CMD').at(-1)?.argument ?? 'null')).toEqual(['start']);
    expect(find(runtime, 'RUN').some((instruction) => /apt-get install\b.*\btini\b/.test(instruction.argument))).toBe(true);
  });

  it('checks /healthz on TSUKA_HTTP_PORT without curl', () => {
    const healthcheck = find(runtime, 'HEALTHCHECK').at(-1)?.argument ?? '';
    expect(healthcheck).toContain('/healthz');
    expect(healthcheck).toContain('TSUKA_HTTP_PORT');
    expect(healthcheck).not.toMatch(/\bcurl\b|\bwget\b/);
  });

  it('declares the /data and /workspace volumes and points the settings at them', () => {
    const volumes = find(runtime, 'VOLUME')
      .map((instruction) => instruction.argument)
      .join(' ');
    expect(volumes).toContain('"/data"');
    expect(volumes).toContain('"/workspace"');
    const environment = find(runtime, 'ENV')
      .map((instruction) => instruction.argument)
      .join(' ');
    expect(environment).toMatch(/TSUKA_DATA_DIR=\/data\b/);
    expect(environment).toMatch(/TSUKA_WORKSPACE=\/workspace\b/);
    // Inside a container, 127.0.0.1 would make the health check the only thing that can reach the server.
    expect(environment).toMatch(/TSUKA_HTTP_HOST=0\.0\.0\.0\b/);
    expect(find(runtime, 'EXPOSE').at(-1)?.argument).toBe('3000');
  });

  it('never pipes a download into a shell', () => {
    expect(dockerfile).not.toMatch(/\b(curl|wget)\b[^\n]*\|\s*(ba)?sh\b/);
  });

  it('compiles with tsc in the build stage and keeps production dependencies only', () => {
    const build = all.slice(0, lastFrom);
    expect(find(build, 'RUN').some((instruction) => /\bnpm run build\b/.test(instruction.argument))).toBe(true);
    expect(find(build, 'RUN').some((instruction) => /\bnpm (prune|ci)\b.*--omit=dev/.test(instruction.argument))).toBe(true);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.build).toBe('node scripts/build.mjs');
    expect(read('scripts/build.mjs')).toMatch(/tsconfig\.build\.json/);
  });

  it('runs dist/ in the runtime image: no sources, and no tsx, esbuild or typescript among the installed packages', () => {
    const copies = find(runtime, 'COPY').map((instruction) => instruction.argument);
    expect(copies).toContain('--from=build /app/dist ./dist');
    // Neither the whole build folder nor src/ reaches the runtime image.
    expect(copies.some((argument) => /(^|\s)(\/app\/?|\/app\/src|src)(\s|$)/.test(argument.split(/\s+/).slice(0, -1).join(' ')))).toBe(false);
    const manifest = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean }> };
    for (const tool of ['tsx', 'esbuild', 'typescript']) {
      expect(manifest.dependencies[tool], tool).toBeUndefined();
      // Dev-only in the lock file: `npm prune --omit=dev` removes it, whatever depends on it.
      expect(lock.packages[`node_modules/${tool}`]?.dev, tool).toBe(true);
    }
    for (const [name, entry] of Object.entries(lock.packages)) {
      if (/node_modules\/@esbuild\//.test(name)) expect(entry.dev, name).toBe(true);
    }
  });

  it('copies only paths that exist and that .dockerignore lets into the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const sources = find(all, 'COPY')
      .filter((instruction) => !instruction.argument.startsWith('--from'))
      .flatMap((instruction) => instruction.argument.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(path.join(ROOT, source)), `${source} exists`).toBe(true);
      expect(ignored, `${source} is not ignored`).not.toContain(source.split('/')[0]);
    }
  });
});

describe('.dockerignore', () => {
  it('keeps secrets, local state and dependencies out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['node_modules', 'data', 'test-output', '.git', '*.log', '.env', 'coverage']) {
      expect(ignored).toContain(entry);
    }
  });
});

describe('docker-compose.yml', () => {
  const compose = read('docker-compose.yml');

  it('runs tsuka beside ollama and points the model client at it', () => {
    expect(compose).toMatch(/^ {2}ollama:\n\s+image: ollama\/ollama/m);
    expect(compose).toMatch(/^ {2}tsuka:\n\s+build: \./m);
    expect(compose).toContain('TSUKA_LLM_BASE_URL: http://ollama:11434/v1');
  });

  it("publishes the HTTP port on the host's loopback only", () => {
    const published = [...compose.matchAll(/^\s+- "?([\d.:]+)"?$/gm)].map((match) => match[1]);
    expect(published).toEqual(['127.0.0.1:3000:3000']);
  });

  it('gives graceful shutdown more than its 10 s and mounts both volumes', () => {
    const grace = /stop_grace_period: (\d+)s/.exec(compose);
    expect(Number(grace?.[1])).toBeGreaterThan(10);
    expect(compose).toContain('- ./data:/data');
    expect(compose).toContain('- ./workspace:/workspace');
    expect(compose).toContain('restart: unless-stopped');
  });
});

describe('docker-compose.replicas.yml', () => {
  const compose = read('docker-compose.replicas.yml');

  it('runs Redis, a model server and the bot, the replicas sharing Redis and the workspace', () => {
    expect(compose).toMatch(/^ {2}redis:\n\s+image: redis:/m);
    expect(compose).toMatch(/appendonly", "yes"/);
    expect(compose).toMatch(/^ {2}ollama:\n\s+image: ollama\/ollama/m);
    // Redis with a password: agent commands share the bot's network, and Redis decides approvals.
    expect(compose).toMatch(/--requirepass", "\$\{REDIS_PASSWORD:\?/);
    expect(compose).toContain('TSUKA_STORE_URL: redis://redis:6379');
    expect(compose).toContain('- ./workspace:/workspace');
    expect(compose).toContain('--scale tsuka=2');
    // No port is published: two replicas could not both bind one host port.
    expect(compose).not.toMatch(/^\s+ports:/m);
  });
});

describe('the compose files give agent commands the strong isolation (issue 26)', () => {
  it.each(['docker-compose.yml', 'docker-compose.replicas.yml'])('%s lets bubblewrap work and never falls back to "environment only"', (file) => {
    const compose = read(file);
    const service = compose.slice(compose.indexOf('\n  tsuka:'));
    expect(service).toMatch(/security_opt:\n\s+- seccomp=unconfined\n\s+- apparmor=unconfined/);
    expect(service).toMatch(/environment:\n\s+TSUKA_SANDBOX: bubblewrap/);
    // Nothing wider than that: no privileged container and no added capability.
    expect(compose).not.toMatch(/privileged:\s*true|cap_add/);
  });
});
