/**
 * What a turn starts with besides the message (issue 23): the thread's earlier messages on a
 * tag-in with the newest files attached to them, and the message's files (saved in the
 * conversation's workspace inbox, small ones shown, PDFs as their text, images given to a model that
 * sees them — otherwise the thread is told once that it cannot; a PDF that cannot be read is said).
 */
import type { ImagePart } from '../../core/model/language-model.js';
import type { Session } from '../../core/store/session-store.js';
import type { ModelTier } from '../../core/tools/tool.js';
import type { ChatSurface, MessageRef, ThreadRef, UserRef } from '../chat-surface.js';
import { fenceUntrusted } from '../../core/safety/untrusted-content.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { ContextMessage, InboundFile } from './conversation-context.js';
import { prepareFiles, type PreparedFiles, type PrepareFilesOptions } from './inbound-files.js';
import { formatThreadContext, readUnseenThreadMessages, THREAD_CONTEXT_BUDGET_CHARS } from './thread-context.js';
import { earlierFiles, THREAD_FILES_MAX_TOTAL_BYTES } from './thread-files.js';
import { formatViewing, type ViewingContext } from './viewing-context.js';

/** Where a turn's message came from: serialisable, so a queued turn carries it to another replica. */
export interface TurnSource {
  message: MessageRef;
  /** The thread the message was written in, when it was in one. */
  thread?: ThreadRef;
  replyTo?: MessageRef;
  files?: InboundFile[];
  /** A tag-in (a mention inside a thread or a reply): the thread's earlier messages are read. */
  readThread: boolean;
  /** What the person was looking at when they wrote (Slack's agent view): ids only. */
  viewing?: ViewingContext;
}

export interface TurnContext {
  /** The thread's earlier messages ('' when none); fenced as untrusted when others wrote some of them. */
  thread: string;
  /** The attached files ('' when none), fenced as untrusted. */
  files: string;
  /** What the person was looking at ('' when unknown): ids only, quoted as untrusted. */
  viewing: string;
  images: ImagePart[];
  /** What untrusted text came with the turn (issue 41): attached files, other people's or bots' messages. */
  untrusted: string[];
}

/** The kinds of untrusted text in the thread's earlier messages, read as `requester`. */
function untrustedInThread(messages: readonly ContextMessage[], requester: UserRef | undefined): string[] {
  return [
    ...(messages.some((message) => !message.fromOtherBot && message.user !== requester) ? [THREAD_FROM_OTHERS] : []),
    ...(messages.some((message) => message.fromOtherBot) ? [OTHER_BOT] : []),
  ];
}

export const THREAD_FROM_OTHERS = 'thread messages from other people';
export const OTHER_BOT = 'another bot’s messages';
export const ATTACHED_FILES = 'attached files';

const NOTICES = 'notices';

export async function gatherTurnContext(
  deps: CommandDependencies,
  turn: {
    surface: ChatSurface;
    thread: ThreadRef;
    source?: TurnSource;
    tier: ModelTier;
    modelId: string;
    session?: Session;
    signal: AbortSignal;
    /** Who asks: their own earlier messages are not untrusted text. */
    requester?: UserRef;
  },
): Promise<TurnContext> {
  const { source, surface } = turn;
  if (!source) return { thread: '', files: '', viewing: '', images: [], untrusted: [] };
  const messages = source.readThread
    ? await readUnseenThreadMessages({
        surface,
        request: { message: source.message, ...(source.thread ? { thread: source.thread } : {}), ...(source.replyTo ? { replyTo: source.replyTo } : {}) },
        maskSecrets: deps.maskSecrets,
        logger: deps.logger,
        // A thread the bot already follows: only what it has not seen since its last turn.
        ...(turn.session ? { after: turn.session.updatedAt, known: (turn.session.sideTalk ?? []).map((entry) => entry.text) } : {}),
      })
    : [];
  const inThread = untrustedInThread(messages, turn.requester);
  const thread = fenced(inThread, formatThreadContext(messages, THREAD_CONTEXT_BUDGET_CHARS[turn.tier], deps.maskSecrets));
  const common: Omit<PrepareFilesOptions, 'files'> = {
    surface,
    workspace: deps.workspace,
    seesImages: () => deps.models.seesImages?.() ?? Promise.resolve(false),
    maskSecrets: deps.maskSecrets,
    logger: deps.logger,
    signal: turn.signal,
  };
  const earlier = earlierFiles(messages, deps.maskSecrets);
  const parts: PreparedFiles[] = [];
  if (earlier.files.length > 0)
    parts.push(
      await prepareFiles({
        ...common,
        files: earlier.files,
        heading: earlier.heading,
        originOf: earlier.originOf,
        maxTotalBytes: THREAD_FILES_MAX_TOTAL_BYTES,
      }),
    );
  parts.push(await prepareFiles({ ...common, files: source.files ?? [] }));
  const unseen = parts.flatMap((part) => part.unseenImages);
  if (unseen.length > 0) await tellOnceNoVision(deps, surface, turn.thread, turn.modelId, unseen);
  const unreadable = parts.flatMap((part) => part.unreadable);
  if (unreadable.length > 0) await tellUnreadable(deps, surface, turn.thread, unreadable);
  const files = parts
    .map((part) => part.prompt)
    .filter(Boolean)
    .join('\n\n');
  const attached = earlier.files.length > 0 || (source.files ?? []).length > 0 ? [ATTACHED_FILES] : [];
  return {
    thread,
    files: fenced(attached, files),
    viewing: formatViewing(source.viewing),
    images: parts.flatMap((part) => part.images),
    untrusted: [...inThread, ...attached],
  };
}

/** `text` fenced and labelled when it carries untrusted text; '' stays ''. */
const fenced = (sources: readonly string[], text: string): string => (text === '' || sources.length === 0 ? text : fenceUntrusted(sources.join('; '), text));

/** Tells the thread which files were saved but could not be read, and why (an encrypted or broken PDF). */
async function tellUnreadable(deps: CommandDependencies, surface: ChatSurface, thread: ThreadRef, files: PreparedFiles['unreadable']): Promise<void> {
  const lines = files.map((file) => `📄 Couldn't read ${file.name}: ${file.reason}. The file is saved in the workspace as \`${file.path}\`.`);
  await surface
    .post({ thread, text: lines.join('\n') })
    .catch((error: unknown) => deps.logger.warn('could not tell the thread that a file could not be read', { thread, error }));
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
