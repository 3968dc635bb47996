/**
 * The core's error family. Every error the engine raises is a `TsukaError` with a stable `code`;
 * wrapping always keeps `cause`. The user sees `message` (one sentence); logs see the stack.
 */
export class TsukaError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The model server failed, stalled or answered something unusable. */
export class ModelError extends TsukaError {
  readonly retryable: boolean;
  readonly status?: number;
  constructor(message: string, options: { cause?: unknown; retryable?: boolean; status?: number; code?: string } = {}) {
    super(options.code ?? 'model_error', message, options);
    this.retryable = options.retryable ?? false;
    this.status = options.status;
  }
}

/** No token arrived within the first-token timeout, or the whole generation took too long. */
export class ModelTimeoutError extends ModelError {
  readonly phase: 'first-token' | 'generation';
  readonly timeoutMs: number;
  constructor(phase: 'first-token' | 'generation', timeoutMs: number, options: { cause?: unknown } = {}) {
    super(
      phase === 'first-token'
        ? `The model server sent no token within ${Math.round(timeoutMs / 1000)} s.`
        : `The model's answer took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`,
      { ...options, retryable: phase === 'first-token', code: 'model_timeout' },
    );
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}

/** A data file (role, trait, character, team, tool schema, provider catalogue) is invalid. */
export class DataFileError extends TsukaError {
  readonly problems: readonly { file: string; field: string; message: string }[];
  constructor(problems: readonly { file: string; field: string; message: string }[], options?: { cause?: unknown }) {
    super('data_invalid', problems.map((p) => `${p.file}: ${p.field}: ${p.message}`).join('\n'), options);
    this.problems = problems;
  }
}

/** A tool was called with arguments that do not match its schema, or is unknown / not offered. */
export class ToolInputError extends TsukaError {
  readonly toolName: string;
  constructor(toolName: string, message: string, options?: { cause?: unknown }) {
    super('tool_input_invalid', message, options);
    this.toolName = toolName;
  }
}

/** A path resolved outside the workspace (including through a symlink). */
export class WorkspaceEscapeError extends TsukaError {
  readonly requestedPath: string;
  constructor(requestedPath: string, options?: { cause?: unknown }) {
    super('workspace_escape', `The path "${requestedPath}" is outside the workspace.`, options);
    this.requestedPath = requestedPath;
  }
}

/** The turn or run was cancelled (Stop button, `stop`, shutdown). */
export class AbortedError extends TsukaError {
  constructor(message = 'Stopped.', options?: { cause?: unknown }) {
    super('aborted', message, options);
  }
}

/** The state store could not be opened or written. */
export class StoreError extends TsukaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('store_error', message, options);
  }
}

/** Wraps anything thrown into a TsukaError, keeping the original as `cause`. */
export function toTsukaError(error: unknown, fallbackMessage = 'Something went wrong.'): TsukaError {
  if (error instanceof TsukaError) return error;
  const message = error instanceof Error && error.message ? error.message : fallbackMessage;
  return new TsukaError('internal', message, { cause: error });
}
