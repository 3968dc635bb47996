/**
 * What a turn starts with besides the message (issue 23): the thread's earlier messages on a
 * tag-in, and the message's files (saved in the conversation's workspace inbox, small ones shown,
 * images given to a model that sees them — otherwise the thread is told once that it cannot).
 */
import type { ImagePart } from '../core/model/language-model.js';
import type { Session } from '../core/store/session-store.js';
import type { ModelTier } from '../core/tools/tool.js';
import type { ChatSurface, MessageRef, ThreadRef } from './chat-surface.js';
import type { CommandDependencies } from './command-dependencies.js';
import type { InboundFile } from './conversation-context.js';
import { prepareFiles } from './inbound-files.js';
import { readThreadContext } from './thread-context.js';

/** Where a turn's message came from: serialisable, so a queued turn carries it to another replica. */
export interface TurnSource {
  message: MessageRef;
  /** The thread the message was written in, when it was in one. */
  thread?: ThreadRef;
  replyTo?: MessageRef;
  files?: InboundFile[];
  /** A tag-in (a mention inside a thread or a reply): the thread's earlier messages are read. */
  readThread: boolean;
}

export interface TurnContext {
  /** The thread's earlier messages ('' when none). */
  thread: string;
  /** The attached files ('' when none). */
  files: string;
  images: ImagePart[];
}

const NOTICES = 'notices';

export async function gatherTurnContext(
  deps: CommandDependencies,
  turn: { surface: ChatSurface; thread: ThreadRef; source?: TurnSource; tier: ModelTier; modelId: string; session?: Session; signal: AbortSignal },
): Promise<TurnContext> {
  const { source, surface } = turn;
  if (!source) return { thread: '', files: '', images: [] };
  const thread = source.readThread
    ? await readThreadContext({
        surface,
        request: { message: source.message, ...(source.thread ? { thread: source.thread } : {}), ...(source.replyTo ? { replyTo: source.replyTo } : {}) },
        tier: turn.tier,
        maskSecrets: deps.maskSecrets,
        logger: deps.logger,
        // A thread the bot already follows: only what it has not seen since its last turn.
        ...(turn.session ? { after: turn.session.updatedAt, known: (turn.session.sideTalk ?? []).map((entry) => entry.text) } : {}),
      })
    : '';
  const prepared = await prepareFiles({
    files: source.files ?? [],
    surface,
    workspace: deps.workspace,
    seesImages: () => deps.models.seesImages?.() ?? Promise.resolve(false),
    maskSecrets: deps.maskSecrets,
    logger: deps.logger,
    signal: turn.signal,
  });
  if (prepared.unseenImages.length > 0) await tellOnceNoVision(deps, surface, turn.thread, turn.modelId, prepared.unseenImages);
  return { thread, files: prepared.prompt, images: prepared.images };
}

/** Tells the thread, once, that the current model cannot see the images people attach. */
async function tellOnceNoVision(deps: CommandDependencies, surface: ChatSurface, thread: ThreadRef, modelId: string, names: string[]): Promise<void> {
  const notices = deps.store.namespace<boolean>(NOTICES);
  const key = `no-vision:${thread}`;
  if (await notices.get(key)) return;
  await notices.set(key, true);
  await surface
    .post({
      thread,
      text: `🖼️ The current model (${modelId}) cannot see images: ${names.join(', ')} ${names.length === 1 ? 'was' : 'were'} saved in the workspace inbox, but the model only knows ${names.length === 1 ? 'its name' : 'their names'}. A vision model (or \`TSUKA_LLM_VISION=1\` for one the server does not describe) would see ${names.length === 1 ? 'it' : 'them'}.`,
    })
    .catch((error: unknown) => deps.logger.warn('could not tell the thread that the model cannot see images', { thread, error }));
}
