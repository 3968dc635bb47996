/**
 * "Show whole file" (issue 40): people approve what they can see. When an approval card's preview of
 * a file write was cut (`… N more lines …`), the card carries a button that posts the whole proposed
 * file in the card's thread, as a file (masked like everything posted). Anyone who sees the card may
 * press it: the thread already shows the call. The content is the waiting call's own arguments, held by
 * the process that waits for it; after that call is decided, or on another replica, the click says so.
 */
import path from 'node:path';
import type { PermissionRequest } from '../../core/safety/permission-port.js';
import { APPROVE_ACTION, APPROVE_RUN_ACTION, DENY_ACTION, SHOW_WHOLE_FILE_ACTION } from '../action-ids.js';
import type { Waiter } from './approval-delivery.js';
import { approveForRunLabel } from '../reply/button-label.js';
import type { Button, ChatSurface } from '../chat-surface.js';
import type { ButtonActionEvent } from '../inbound-event.js';

/** A cut marker of the preview helpers (line-diff.ts): the card does not show all of it. */
const CUT_LINE = /^… \d+ more (?:changed )?lines/;

/** The waiter's `wholeFile`, when the card's preview shows only part of the file a write would leave (else nothing to spread). */
export function wholeFileOf(request: PermissionRequest): Pick<Waiter, 'wholeFile'> {
  const args = request.arguments as { path?: unknown; content?: unknown } | undefined;
  if (request.toolName !== 'write_file' || typeof args?.content !== 'string' || typeof args.path !== 'string') return {};
  if (!request.details.some((line) => CUT_LINE.test(line))) return {};
  return { wholeFile: { fileName: path.basename(args.path) || 'file.txt', shownPath: args.path, content: args.content } };
}

/** The card's buttons: Approve, Approve for this run where it applies, Deny, and Show whole file when the preview was cut. */
export function approvalCardButtons(request: PermissionRequest, id: string, wholeFile: boolean): Button[] {
  return [
    { actionId: APPROVE_ACTION, label: 'Approve', style: 'success', value: id },
    ...(request.allowForRun && request.riskLevel === 'RESTRICTED'
      ? [{ actionId: APPROVE_RUN_ACTION, label: approveForRunLabel(request.grantScope ?? request.toolName), style: 'primary' as const, value: id }]
      : []),
    { actionId: DENY_ACTION, label: 'Deny', style: 'danger', value: id },
    ...(wholeFile ? [{ actionId: SHOW_WHOLE_FILE_ACTION, label: 'Show whole file', style: 'secondary' as const, value: id }] : []),
  ];
}

/** A click on Show whole file: the file in the card's thread, or why it cannot be shown. */
export async function showWholeFile(event: ButtonActionEvent, surface: ChatSurface, waiters: ReadonlyMap<string, Waiter>): Promise<void> {
  const waiter = waiters.get(event.value);
  const file = waiter?.wholeFile;
  if (!waiter || !file) return event.replyEphemeral('This call is no longer waiting for a decision here: its whole file cannot be shown now.');
  await surface.uploadFile({
    channel: event.channel,
    ...(event.thread ? { thread: event.thread } : {}),
    fileName: file.fileName,
    title: `The whole file write_file would write: ${file.shownPath}`,
    content: file.content,
  });
}
