/**
 * A real `redis-server` (Debian package) on a free 127.0.0.1 port for one test file: no
 * persistence, a password (TSUKA refuses a password-less Redis), stopped (and its process reaped) by `stop()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import { once } from 'node:events';

/** One password per test process: a server restarted on the same port (`{ port }`) takes the same URL. */
const TEST_REDIS_PASSWORD = randomBytes(12).toString('hex');

export interface RedisServer {
  /** `redis://:PASSWORD@127.0.0.1:PORT`. */
  url: string;
  /** The same server without the password (refused by Redis, and by TSUKA's configuration). */
  urlWithoutPassword: string;
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts redis-server (on `port`, e.g. to restart one, else a free one; `password`, else the file's) and resolves once it accepts connections. */
export async function startRedisServer(options: { port?: number; password?: string } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const password = options.password ?? TEST_REDIS_PASSWORD;
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning', '--requirepass', password],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  // Ready when the port accepts a connection (the server logs little at `warning`).
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited at start: ${output}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on ${port}: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url: `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    urlWithoutPassword: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
