/**
 * Other keyv backends chosen by `TSUKA_STORE_URL` (Postgres, MySQL, MongoDB, Valkey). Their adapter
 * packages are optional and loaded only when named. Redis has its own backend (redis-backend.ts)
 * and is the supported way for several replicas to share state: coordination (locks, turns,
 * approvals, leases) runs on Redis only, so these stores serve one process.
 */
import type { KeyvStoreAdapter } from 'keyv';
import { StoreError } from '../errors.js';
import type { StoreBackend } from './store-backend.js';

const ADAPTER_PACKAGES: Record<string, string> = {
  valkey: '@keyv/valkey',
  postgres: '@keyv/postgres',
  postgresql: '@keyv/postgres',
  mysql: '@keyv/mysql',
  mongodb: '@keyv/mongo',
};

type AdapterConstructor = new (options: unknown) => KeyvStoreAdapter;

/** The URL with any password replaced, safe for logs and messages. */
export function redactStoreUrl(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

function isAdapterConstructor(value: unknown): value is AdapterConstructor {
  return typeof value === 'function';
}

/** Loads the adapter package for the URL's scheme and checks that the server answers. */
export async function openExternalBackend(url: string): Promise<StoreBackend> {
  const location = redactStoreUrl(url);
  const scheme = url.slice(0, Math.max(0, url.indexOf(':'))).toLowerCase();
  const packageName = ADAPTER_PACKAGES[scheme];
  if (!packageName) {
    throw new StoreError(`TSUKA_STORE_URL "${location}" uses an unknown scheme; use sqlite://, memory://, ${Object.keys(ADAPTER_PACKAGES).join('://, ')}://.`);
  }
  let loaded: unknown;
  try {
    loaded = await import(packageName);
  } catch (error) {
    throw new StoreError(`TSUKA_STORE_URL "${location}" needs the package ${packageName}: run npm install ${packageName}.`, {
      cause: error,
    });
  }
  const candidate = (loaded as { default?: unknown }).default;
  if (!isAdapterConstructor(candidate)) {
    throw new StoreError(`The package ${packageName} does not export a keyv adapter as its default export.`);
  }
  const adapter = scheme.startsWith('redis') || scheme === 'valkey' ? new candidate(url) : new candidate({ uri: url });
  try {
    await adapter.get('tsuka:open-check');
  } catch (error) {
    throw new StoreError(`The state store ${location} does not answer: check the URL and that the server runs.`, {
      cause: error,
    });
  }
  return {
    location,
    adapter,
    async *scan(prefix) {
      if (typeof adapter.iterator !== 'function') {
        throw new StoreError(`The state store ${location} cannot list keys, which TSUKA needs.`);
      }
      const found: [string, string][] = [];
      // Adapters take the namespace and add their own separator; filter by the exact prefix here.
      const namespace = prefix.slice(0, prefix.indexOf(':'));
      for await (const entry of adapter.iterator(namespace) as AsyncIterable<unknown>) {
        if (!Array.isArray(entry)) continue;
        const [key, value] = entry as unknown[];
        if (typeof key === 'string' && typeof value === 'string' && key.startsWith(prefix)) found.push([key, value]);
      }
      found.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      yield* found;
    },
    async close() {
      await adapter.disconnect?.();
    },
  };
}
