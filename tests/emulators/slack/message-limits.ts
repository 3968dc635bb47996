/**
 * Slack's message length and Block Kit limits, enforced with the error names the real Web API
 * returns (https://docs.slack.dev/reference/methods/chat.postMessage, Block Kit reference).
 */

export const SLACK_MAX_TEXT_LENGTH = 40_000;
export const SLACK_MAX_BLOCKS = 50;
export const SLACK_MAX_SECTION_TEXT_LENGTH = 3_000;
export const SLACK_MAX_SECTION_FIELD_LENGTH = 2_000;
export const SLACK_MAX_MARKDOWN_BLOCK_LENGTH = 12_000;
export const SLACK_MAX_HEADER_TEXT_LENGTH = 150;
/** Observed, not documented: the sum of all block text above ~13,200 fails with msg_blocks_too_long. */
export const SLACK_MAX_TOTAL_BLOCK_TEXT_LENGTH = 13_200;
export const SLACK_MAX_BUTTON_TEXT_LENGTH = 75;
export const SLACK_MAX_ACTION_ID_LENGTH = 255;
export const SLACK_MAX_BUTTON_VALUE_LENGTH = 2_000;
const BUTTON_STYLES = new Set(['primary', 'danger']);

/** The outcome of checking a message's text and blocks. */
export type ContentCheck =
  | { ok: true; text: string; blocks?: unknown[]; truncated: boolean }
  | { ok: false; error: 'no_text' | 'invalid_blocks' | 'invalid_blocks_format' | 'msg_blocks_too_long'; detail: string };

type Failure = Extract<ContentCheck, { ok: false }>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof value.text === 'string') return value.text;
  return undefined;
}

/** Sum of every string held under a `text` key, at any depth: what Slack counts as block text. */
function totalBlockText(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + totalBlockText(item), 0);
  if (!isRecord(value)) return 0;
  let sum = 0;
  for (const [key, child] of Object.entries(value)) {
    sum += key === 'text' && typeof child === 'string' ? child.length : totalBlockText(child);
  }
  return sum;
}

function invalid(detail: string): Failure {
  return { ok: false, error: 'invalid_blocks', detail };
}

function checkButton(element: Record<string, unknown>, pointer: string): Failure | undefined {
  const label = textOf(element.text) ?? '';
  if (label.length > SLACK_MAX_BUTTON_TEXT_LENGTH) {
    return invalid(`must be less than ${SLACK_MAX_BUTTON_TEXT_LENGTH + 1} characters [json-pointer:${pointer}/text/text]`);
  }
  if (typeof element.action_id === 'string' && element.action_id.length > SLACK_MAX_ACTION_ID_LENGTH) {
    return invalid(`must be less than ${SLACK_MAX_ACTION_ID_LENGTH + 1} characters [json-pointer:${pointer}/action_id]`);
  }
  if (typeof element.value === 'string' && element.value.length > SLACK_MAX_BUTTON_VALUE_LENGTH) {
    return invalid(`must be less than ${SLACK_MAX_BUTTON_VALUE_LENGTH + 1} characters [json-pointer:${pointer}/value]`);
  }
  if (element.style !== undefined && !BUTTON_STYLES.has(String(element.style))) {
    return invalid(`must be one of primary, danger [json-pointer:${pointer}/style]`);
  }
  return undefined;
}

function checkElements(elements: unknown, pointer: string): Failure | undefined {
  if (!Array.isArray(elements)) return undefined;
  for (const [index, element] of elements.entries()) {
    if (isRecord(element) && element.type === 'button') {
      const failure = checkButton(element, `${pointer}/${index}`);
      if (failure) return failure;
    }
  }
  return undefined;
}

function checkBlock(block: unknown, index: number): Failure | undefined {
  const pointer = `/blocks/${index}`;
  if (!isRecord(block) || typeof block.type !== 'string') return invalid(`missing required field: type [json-pointer:${pointer}]`);
  if (block.type === 'section') {
    const text = textOf(block.text);
    if (text !== undefined && text.length > SLACK_MAX_SECTION_TEXT_LENGTH) {
      return invalid(`must be less than ${SLACK_MAX_SECTION_TEXT_LENGTH + 1} characters [json-pointer:${pointer}/text/text]`);
    }
    if (Array.isArray(block.fields)) {
      const tooLong = block.fields.findIndex((field) => (textOf(field) ?? '').length > SLACK_MAX_SECTION_FIELD_LENGTH);
      if (tooLong >= 0) return invalid(`must be less than ${SLACK_MAX_SECTION_FIELD_LENGTH + 1} characters [json-pointer:${pointer}/fields/${tooLong}/text]`);
    }
    if (isRecord(block.accessory) && block.accessory.type === 'button') return checkButton(block.accessory, `${pointer}/accessory`);
  }
  if (block.type === 'markdown' && (textOf(block.text) ?? '').length > SLACK_MAX_MARKDOWN_BLOCK_LENGTH) {
    return invalid(`must be less than ${SLACK_MAX_MARKDOWN_BLOCK_LENGTH + 1} characters [json-pointer:${pointer}/text]`);
  }
  if (block.type === 'header' && (textOf(block.text) ?? '').length > SLACK_MAX_HEADER_TEXT_LENGTH) {
    return invalid(`must be less than ${SLACK_MAX_HEADER_TEXT_LENGTH + 1} characters [json-pointer:${pointer}/text/text]`);
  }
  if (block.type === 'actions') return checkElements(block.elements, `${pointer}/elements`);
  return undefined;
}

/**
 * Checks what chat.postMessage / chat.update / chat.postEphemeral would accept. `blocks` may be the
 * JSON string a form-encoded request carries, or an already parsed array.
 */
export function checkMessageContent(input: { text?: unknown; blocks?: unknown }): ContentCheck {
  let blocks: unknown = input.blocks;
  if (typeof blocks === 'string') {
    try {
      blocks = JSON.parse(blocks);
    } catch (error) {
      return { ok: false, error: 'invalid_blocks_format', detail: `blocks is not valid JSON: ${String(error)}` };
    }
  }
  if (blocks !== undefined && blocks !== null && !Array.isArray(blocks)) {
    return { ok: false, error: 'invalid_blocks_format', detail: 'blocks must be an array' };
  }
  const blockList = Array.isArray(blocks) ? blocks : undefined;
  const rawText = typeof input.text === 'string' ? input.text : input.text === undefined ? '' : String(input.text);
  if (rawText.length === 0 && (blockList === undefined || blockList.length === 0)) {
    return { ok: false, error: 'no_text', detail: 'neither text nor blocks were given' };
  }
  if (blockList) {
    if (blockList.length > SLACK_MAX_BLOCKS) return invalid(`no more than ${SLACK_MAX_BLOCKS} items allowed [json-pointer:/blocks]`);
    for (const [index, block] of blockList.entries()) {
      const failure = checkBlock(block, index);
      if (failure) return failure;
    }
    const total = totalBlockText(blockList);
    if (total > SLACK_MAX_TOTAL_BLOCK_TEXT_LENGTH) {
      return { ok: false, error: 'msg_blocks_too_long', detail: `blocks hold ${total} characters of text` };
    }
  }
  const truncated = rawText.length > SLACK_MAX_TEXT_LENGTH;
  return {
    ok: true,
    text: truncated ? rawText.slice(0, SLACK_MAX_TEXT_LENGTH) : rawText,
    ...(blockList ? { blocks: blockList } : {}),
    truncated,
  };
}
