/**
 * The chat-surface port: everything the command layer needs from a chat platform. Slack, Discord
 * and the local playground each implement it with the same file names. Ids are opaque strings
 * (`slack:T0/C1/1712345.0001`) that only the adapter that made them decodes.
 */
import type { PolicyGroup } from '../core/policy/policy-schema.js';
import type { ContextMessage, InboundFile, ThreadHistoryRequest } from './context/conversation-context.js';

/** Opaque id of a thread (Slack: channel + parent ts; Discord: the thread channel). */
export type ThreadRef = string;
/** Opaque id of one message (Slack: channel + ts; Discord: channel + message id, + webhook when posted through one). */
export type MessageRef = string;
/** Opaque id of a channel (`slack:T0/C123`, `discord:G1/456`, `playground:general`). */
export type ChannelRef = string;
/** Opaque id of a user (`slack:U123`, `discord:81234`, `playground:local`): the form `TSUKA_ADMINS` uses. */
export type UserRef = string;

export type Platform = 'slack' | 'discord' | 'playground';

/** Who a message is posted as: a character's name and avatar, or the bot itself when absent. */
export interface Identity {
  name: string;
  /** An emoji (`🔧` or `:wrench:`) or an https URL. */
  avatar?: string;
  /**
   * A picture the platform fetches (Discord's webhook `avatar_url`, Slack's `icon_url`): the
   * character's own URL, or its generated picture under `TSUKA_PUBLIC_URL`; absent without either.
   */
  avatarUrl?: string;
  /** The character's picture on this host's HTTP server (`/avatars/<name>.png`), for pages it serves itself (the playground). */
  avatarPath?: string;
  /** The character's file name (`spock`): Discord gives it a webhook of its own, with its picture, when no `avatarUrl` exists. */
  character?: string;
}

export type ButtonStyle = 'primary' | 'success' | 'danger' | 'secondary';

export interface Button {
  /** Routed back as `button-action.actionId`; ≤ 64 characters, no secrets. */
  actionId: string;
  label: string;
  style: ButtonStyle;
  /** Routed back as `button-action.value`; ≤ 64 characters, no secrets. */
  value: string;
  /**
   * Makes this a menu (Slack `static_select`, Discord string select, the playground's `<select>`):
   * `label` is its placeholder, and the option picked comes back as `button-action.choice`. At most
   * {@link MENU_MAX_OPTIONS}. Surfaces show a menu in its own compact element after the buttons.
   */
  options?: MenuOption[];
}

/** One entry of a menu. */
export interface MenuOption {
  label: string;
  /** Routed back as `button-action.choice`; ≤ 40 characters of `[\w:@.-]`, no secrets. */
  choice: string;
}

/** The most options a menu carries (Discord's limit for a string select). */
export const MENU_MAX_OPTIONS = 25;

/** True for a menu (a {@link Button} with options), false for a plain button. */
export const isMenu = (button: Button): boolean => button.options !== undefined;

/** A picture for {@link ChatSurface.uploadImage}. */
export interface ImageUpload {
  channel: ChannelRef;
  thread?: ThreadRef;
  /** Ends in `.svg`; adapters that send PNG rename it. */
  fileName: string;
  title: string;
  svg: string;
  altText: string;
}

/** What a channel is, for approval rules, scopes and per-channel settings (`channelInfo`). */
export interface ChannelInfo {
  /** A direct message with one person; a private channel (invitation only); or a channel anyone may join. */
  kind: 'dm' | 'private' | 'public';
  /** The channel's name without `#`, when it has one. */
  name?: string;
  /** Members, the bot included, when the platform says (undefined: unknown — treat as several people). */
  members?: number;
  /** The one person here is the host's operator (the local playground): a DANGEROUS call is theirs to decide. */
  operator?: true;
}

export interface SurfaceLimits {
  /** Longest text part the adapter posts in one message (Slack 3,900; Discord 2,000). */
  maxMessageLength: number;
  /** Minimum time between two edits of one message. */
  editIntervalMs: number;
}

export interface PostOptions {
  thread: ThreadRef;
  text: string;
  identity?: Identity;
  buttons?: Button[];
}

export interface EditOptions {
  message: MessageRef;
  text: string;
  identity?: Identity;
  /** Replaces the buttons; an empty array removes them; undefined keeps none. */
  buttons?: Button[];
}

/** Where a task stands: waiting (e.g. for an approval), running, done, failed. */
export type TaskStatus = 'pending' | 'in_progress' | 'complete' | 'error';

/**
 * A tool call or a workflow step, shown natively where a platform can (Slack's task cards); the
 * same `id` updates the same task. Surfaces that cannot show it leave the renderer to write `line`.
 */
export interface TaskUpdate {
  id: string;
  /** The tool and its subject ("read_file api/package.json") or the step. */
  title: string;
  status: TaskStatus;
  details?: string;
  /** The compact result ("1.2 KB", "exit 1"). */
  output?: string;
  /** Pages the task read (browse_url, web_search); each with its text. */
  sources?: { url: string; text: string }[];
  /** The whole compact line ("🔧 read_file a.json — 1.2 KB"), for a task that ends where tasks are text. */
  line?: string;
}

/**
 * One reply message that grows while the model streams. The text only ever grows (what was shown
 * stays shown), so a platform may append it (Slack's streaming methods) or edit the message in
 * place (placeholder + edits); the status is a transient line (thinking, waiting, a running tool)
 * that is never part of the text. Calls return at once: the stream spends the platform's budget
 * when its turn comes, with the newest text.
 */
export interface ReplyStream {
  /** True when shown text cannot be replaced (a streamed message only grows): a long reply is then cut after what is shown. */
  readonly appendOnly?: boolean;
  /** The reply's whole text so far (not a delta); it extends the text given before. */
  append(text: string): void;
  /** A transient line shown with the reply or under the thread; '' clears it. */
  status(text: string): void;
  /** Ends this message with its whole final text and buttons (none when absent); resolves once shown. May be retried after a failure. */
  stop(options: { text: string; buttons?: Button[] }): Promise<void>;
  /**
   * True while `task` shows tasks natively (Slack's task cards): the renderer then gives tool calls
   * as tasks instead of writing their lines into the text. Where it turns false mid-reply (the
   * workspace refused them), tasks already given still show, as their `line` in the text.
   */
  readonly tasks?: boolean;
  /** A task between the text given so far and what follows (a new id), or an update of one. */
  task?(update: TaskUpdate): void;
}

export interface StreamOptions {
  thread: ThreadRef;
  identity?: Identity;
  /** Buttons shown while the reply streams (Stop), where the platform can show them on a streaming message. */
  buttons?: Button[];
  /** The user the reply answers (Slack's streaming methods address a stream to one user in channels). */
  recipient?: UserRef;
  /** How tasks show: each between the text (`timeline`, the default), or all together in one plan block titled `planTitle`. */
  taskDisplay?: 'timeline' | 'plan';
  planTitle?: string;
  /** What the reply works on (the request): the title of Slack's agent session. */
  title?: string;
  /**
   * Told of each message posted with `buttons` (a placeholder, or Slack's companion beside a
   * streamed message), so that a restart can take them off a run that died (`companion`: the
   * message holds nothing but the buttons).
   */
  onControl?(control: { message: MessageRef; kind: 'companion' | 'message' }): void;
}

export interface ChatSurface {
  readonly platform: Platform;
  readonly limits: SurfaceLimits;
  /**
   * The thread for a message: the thread it is already in, else one started from it
   * (Slack: the message's ts; Discord: a public thread named `title`).
   */
  threadFor(options: { channel: ChannelRef; message: MessageRef; existingThread?: ThreadRef; title: string }): Promise<ThreadRef>;
  /** Posts a root message in a channel and returns it and the thread started from it (slash-command runs). */
  postRoot(options: { channel: ChannelRef; text: string; identity?: Identity; threadTitle: string }): Promise<{ message: MessageRef; thread: ThreadRef }>;
  post(options: PostOptions): Promise<MessageRef>;
  edit(options: EditOptions): Promise<void>;
  /**
   * Takes every button off one of this bot's messages in `thread`, its text kept (restart recovery:
   * the Stop button of a run that died). Absent: the caller edits the message to a line of its own.
   */
  clearButtons?(options: { message: MessageRef; thread: ThreadRef }): Promise<void>;
  /**
   * Opens a reply stream in the thread (nothing is posted until its first text or status). Surfaces
   * without it get placeholder + edits through `post`/`edit` (`createEditReplyStream`).
   */
  startStream?(options: StreamOptions): ReplyStream;
  /**
   * A run's steps as a plan in its thread (Slack: a streamed message of task cards in a plan block),
   * or undefined where the platform has no such thing (the run card and the thread say it instead).
   */
  startPlan?(options: { thread: ThreadRef; title: string; recipient?: UserRef }): ReplyStream | undefined;
  /** A message only `user` sees. */
  postEphemeral(options: { channel: ChannelRef; thread?: ThreadRef; user: UserRef; text: string }): Promise<void>;
  uploadFile(options: { channel: ChannelRef; thread?: ThreadRef; fileName: string; title: string; content: string }): Promise<void>;
  /**
   * A file for `user` alone, in the bot's direct messages with them (Slack: conversations.open;
   * Discord: the user's DM channel; the playground: its `direct` channel) — never in a shared
   * channel. What an admin fetches from another channel goes this way.
   */
  uploadToUser?(options: { user: UserRef; fileName: string; title: string; content: string }): Promise<void>;
  /** A text for `user` alone in the bot's direct messages with them (the same channel as `uploadToUser`). */
  postToUser?(options: { user: UserRef; text: string }): Promise<void>;
  /**
   * A picture (closing stats, a plan graph), shown each platform's own way: Slack and Discord get
   * a PNG attachment, the playground the SVG itself. `altText` says the same in words.
   */
  uploadImage?(options: ImageUpload): Promise<void>;
  /** A transient status under the thread ("thinking… 12 s"); '' clears it. Adapters without one may ignore it. */
  setStatus(options: { thread: ThreadRef; text: string }): Promise<void>;
  /** The channel a thread belongs to. */
  channelOf(thread: ThreadRef): ChannelRef;
  /**
   * What the channel is (a DM, private, public) and how many are in it. Absent, or failing: the
   * caller assumes a shared channel with other people (the safe side for approvals and scopes).
   */
  channelInfo?(channel: ChannelRef): Promise<ChannelInfo>;
  /**
   * Whether `user` is in the channel and may read it now (Slack: conversations.members; Discord: the
   * guild member and the channel's VIEW_CHANNEL overwrites). Asked fresh, never cached; a rejection
   * means "not confirmed". Absent: the platform cannot say.
   */
  isMember?(channel: ChannelRef, user: UserRef): Promise<boolean>;
  /**
   * The members of an approval policy's platform group (a Slack user group, a Discord role), asked
   * fresh. Absent, or failing: the group has no members here (nobody of it can approve).
   */
  groupMembers?(group: PolicyGroup, channel: ChannelRef): Promise<UserRef[]>;
  /** How to mention a user in text (`<@U123>`). */
  mention(user: UserRef): string;
  /**
   * The earlier messages of the thread a message was written in (and of the reply chain above it),
   * oldest first, without this bot's own messages; only ever from that message's own channel.
   * Absent: the turn starts without them.
   */
  threadHistory?(request: ThreadHistoryRequest): Promise<ContextMessage[]>;
  /**
   * Downloads an attached file with the bot's credentials, from the platform's own hosts only,
   * refusing more than `maxBytes`. Absent: attachments are not read.
   */
  downloadFile?(file: InboundFile, options: { maxBytes: number; signal?: AbortSignal }): Promise<Uint8Array>;
}
