/**
 * Secret masker benchmark (not a test): masking throughput on 10 MB inputs, ordinary and
 * adversarial, with a realistic set of secrets (each in eight encoded forms). Run:
 * `npx tsx bench/secret-mask-bench.ts`. Target on the reference machine: ≥ 5 MB/s on every shape
 * (a 10 MB model answer or command output is masked in under 2 s), i.e. linear time.
 */
import { performance } from 'node:perf_hooks';
import { createSecretMasker } from '../src/core/safety/secret-mask.js';
import { benchSize } from './bench-size.js';

const MB = 1024 * 1024;
const TARGET_MB_PER_S = 5;
const SIZE = benchSize(10, 1) * MB;

const env: NodeJS.ProcessEnv = {
  SLACK_BOT_TOKEN: 'xoxb-1111111111-2222222222-AbCdEfGhIjKlMnOpQrSt',
  SLACK_APP_TOKEN: 'xapp-1-A0123456789-1234567890-abcdef0123',
  SLACK_SIGNING_SECRET: '8f14e45fceea167a5a36dedd4bea2543',
  DISCORD_BOT_TOKEN: 'MTA5ODc2NTQzMjEwOTg3NjU0MzI.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456',
  TSUKA_LLM_API_KEY: 'sk-or-v1-0123456789abcdef0123456789abcdef',
  DATABASE_URL: 'postgres://app:Hunter2-db-pw@db.internal:5432/app',
  GITHUB_TOKEN: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
};

const shapes: [string, string][] = [
  ['prose with spaces', 'the quick brown fox jumps over the lazy dog. '],
  ['no spaces', 'a'],
  ['a: repeated', 'a:'],
  ['// repeated', '//'],
  ['@ repeated', '@'],
  ['a://a: repeated', 'a://a:'],
  ['a. repeated', 'a.'],
  ['.aaaaaa repeated', '.aaaaaa'],
  ['base64-like', 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo='],
];

const mask = createSecretMasker(env);
let worst = Infinity;
for (const [label, unit] of shapes) {
  const text = unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
  const started = performance.now();
  mask(text);
  const seconds = (performance.now() - started) / 1000;
  const rate = SIZE / MB / seconds;
  worst = Math.min(worst, rate);
  console.log(`mask 10 MB, ${label.padEnd(18)} ${seconds.toFixed(2)} s  ${rate.toFixed(1)} MB/s`);
}
console.log(`masker worst case: ${worst.toFixed(1)} MB/s (goal ≥ ${TARGET_MB_PER_S} MB/s) ${worst >= TARGET_MB_PER_S ? 'OK' : 'BELOW GOAL'}`);
