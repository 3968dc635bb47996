/**
 * A /goal step's reply carries the same menus as a conversation's (issue 28). A step is one turn
 * of a run with many, so what a second opinion or a re-run needs of it — where it was, who
 * answered, its prompt, its reply and its tool results, masked — is kept apart, in the store's
 * `step-opinions` namespace for {@link STEP_OPINION_TTL_MS}, under `<run id>~<n>`: the menus' value.
 */
import type { ChatMessage } from '../../core/model/language-model.js';
import type { Character } from '../../core/data/types.js';
import type { Store } from '../../core/store/open-store.js';
import type { Button, ChannelRef, ChatSurface, Platform, ThreadRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import { replyMenus } from '../second-opinion/second-opinion-menu.js';
import { transcriptOfTurn, type ReplyTranscript } from '../second-opinion/second-opinion-prompt.js';

export const STEP_OPINION_NAMESPACE = 'step-opinions';
/** How long a step's menus stay usable. */
export const STEP_OPINION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Separates the run id from the step's number in a menu's value (run ids never hold it). */
export const STEP_KEY_SEPARATOR = '~';

export interface StoredStep {
  runId: string;
  platform: Platform;
  channel: ChannelRef;
  thread: ThreadRef;
  /** The character who answered (its file name). */
  character: string;
  transcript: ReplyTranscript;
}

export const stepOpinions = (store: Store) => store.namespace<StoredStep>(STEP_OPINION_NAMESPACE);

/** Keeps one finished step and returns the menus for its reply (none when it could not be kept). */
export async function stepMenus(
  deps: CommandDependencies,
  step: {
    runId: string;
    number: number;
    surface: ChatSurface;
    channel: ChannelRef;
    thread: ThreadRef;
    character: Character;
    /** The step turn's messages, its prompt first. */
    messages: readonly ChatMessage[];
    requester: string;
  },
): Promise<Button[]> {
  const key = `${step.runId}${STEP_KEY_SEPARATOR}${step.number}`;
  try {
    await stepOpinions(deps.store).set(
      key,
      {
        runId: step.runId,
        platform: step.surface.platform,
        channel: step.channel,
        thread: step.thread,
        character: step.character.name,
        transcript: transcriptOfTurn(step.messages, step.requester, deps.maskSecrets),
      },
      STEP_OPINION_TTL_MS,
    );
  } catch (error) {
    deps.logger.warn('could not keep a step for second opinions: its reply has no menus', { runId: step.runId, error });
    return [];
  }
  return replyMenus(deps, { runId: key, character: step.character, channel: step.channel, surface: step.surface });
}
