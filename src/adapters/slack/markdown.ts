/**
 * The command layer writes CommonMark; Slack reads mrkdwn. `&`, `<` and `>` are escaped everywhere
 * (so model text cannot write `<!channel>` or a link whose label hides its target); only the user
 * mentions the bot writes itself (`<@U123>`) stay live. In prose: `**bold**` → `*bold*`, `*italic*`
 * → `_italic_`, `***both***` → `*_both_*`, headings bold, bullets `•`, links and images as
 * `<url|label>`; tables become an aligned preformatted block. Code keeps its text.
 * https://api.slack.com/reference/surfaces/formatting
 */
import { tablesToCodeBlocks } from '../../commands/reply/markdown-tables.js';

const MENTION = /<@[UW][A-Z0-9]+>/g;
/** Marks Slack bold while italics are converted, so `**x**` is not read as two italics. */
const BOLD = '\u0001';

export function escapeSlackText(text: string): string {
  const mentions: string[] = [];
  const protectedText = text.replace(MENTION, (mention) => `\u0000${mentions.push(mention) - 1}\u0000`);
  const escaped = protectedText.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped.replace(/\u0000(\d+)\u0000/g, (_, index: string) => mentions[Number(index)] ?? '');
}

export function toSlackMrkdwn(markdown: string): string {
  return escapeSlackText(tablesToCodeBlocks(markdown))
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/g)
    .map((segment, index) => (index % 2 === 1 ? segment : convertProse(segment)))
    .join('');
}

function link(url: string, label: string): string {
  const clean = label.replace(/\|/g, '¦').trim();
  return clean ? `<${url}|${clean}>` : `<${url}>`;
}

function convertProse(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\((https?:\/\/[^)\s]+)\)/g, (_, label: string, url: string) => link(url, label || 'image'))
    .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, (_, label: string, url: string) => link(url, label))
    .replace(/^(\s*)[-*+]\s+(?=\S)/gm, '$1• ')
    .replace(/^#{1,6}\s+(.+?)\s*#*$/gm, `${BOLD}$1${BOLD}`)
    .replace(/\*\*\*(?=\S)(.+?)\*\*\*/g, `${BOLD}_$1_${BOLD}`)
    .replace(/\*\*(?=\S)(.+?)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/__(?=\S)(.+?)__/g, `${BOLD}$1${BOLD}`)
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]+?)\*(?![\w*])/g, '$1_$2_')
    .replace(/~~(?=\S)(.+?)~~/g, '~$1~')
    .replace(/\u0001/g, '*');
}
