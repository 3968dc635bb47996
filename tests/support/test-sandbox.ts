/**
 * Whole-app tests hold (fake) Slack and Discord tokens, and a start refuses "environment only"
 * isolation while holding tokens (issue 26). Where bubblewrap cannot work here (a machine without
 * user namespaces), these tests opt in to the fallback explicitly — as an operator would, with
 * `TSUKA_SANDBOX=env-only` — and the tests that need bubblewrap say they are skipped.
 */
import { createBubblewrapSandbox } from '../../src/core/safety/bubblewrap-sandbox.js';
import { probeSandbox } from '../../src/core/safety/select-sandbox.js';

export const BUBBLEWRAP_UNAVAILABLE = await probeSandbox(createBubblewrapSandbox({ network: 'none', hiddenPaths: [] }));

/** Added to a whole-app test's environment. */
export const TEST_SANDBOX_ENVIRONMENT: Record<string, string> = BUBBLEWRAP_UNAVAILABLE === undefined ? {} : { TSUKA_SANDBOX: 'env-only' };
