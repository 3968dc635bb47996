/** The configuration every whole-app test starts from: a temp home, the scripted model, port 0. */
import path from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { PACKAGE_ROOT } from '../../src/app/package-root.js';
import { TEST_SANDBOX_ENVIRONMENT } from './test-sandbox.js';

export function testAppConfig(
  home: string,
  modelBaseURL: string,
  environment: Record<string, string | undefined> = {},
  rootDirectory: string = PACKAGE_ROOT,
): AppConfig {
  return loadConfig({
    environment: {
      PATH: process.env.PATH,
      HOME: home,
      TSUKA_LLM_BASE_URL: modelBaseURL,
      TSUKA_DATA_DIR: path.join(home, 'data'),
      TSUKA_WORKSPACE: path.join(home, 'workspace'),
      TSUKA_HTTP_PORT: '0',
      TSUKA_STREAM_EDIT_MS: '200',
      TSUKA_LOG_LEVEL: 'warn',
      // The whole-app tests written before issue 25 expect /goal to run at once; the confirm tests set 1.
      TSUKA_GOAL_CONFIRM: '0',
      ...TEST_SANDBOX_ENVIRONMENT,
      ...environment,
    },
    workingDirectory: home,
    rootDirectory,
  });
}
