/** Where a command or the app writes and what it runs in: the process's streams and environment, or a test's. */
export interface ConsoleIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  environment: NodeJS.ProcessEnv;
  workingDirectory: string;
  /** stderr is a terminal: logs default to human-readable lines (TSUKA_LOG_FORMAT=auto), `ask` shows "thinking… N s". */
  interactive?: boolean;
  /** Delete secrets from `environment` once the configuration holds them (the real process.env). */
  moveSecretsOutOfEnvironment?: boolean;
  /** The folder with the data files (roles/, characters/…, providers.json); tests point it elsewhere. */
  rootDirectory?: string;
}
