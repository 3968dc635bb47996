import type { ReasoningEffort } from '../model/language-model.js';

/** Every level that may set the reasoning effort, most specific first. */
export interface EffortSources {
  /** The global pin (`/tsuka effort`). */
  pin?: ReasoningEffort;
  /** Whoever started the turn (a workflow step, a command option). */
  caller?: ReasoningEffort;
  character?: ReasoningEffort;
  role?: ReasoningEffort;
  configDefault?: ReasoningEffort;
  /** The model tier's default (`tier-defaults.ts`), last of all. */
  tierDefault?: ReasoningEffort;
}

/** The effort to request: pin → caller → character → role → config default → tier default; undefined lets the server decide. */
export function resolveEffort(sources: EffortSources): ReasoningEffort | undefined {
  return sources.pin ?? sources.caller ?? sources.character ?? sources.role ?? sources.configDefault ?? sources.tierDefault;
}
