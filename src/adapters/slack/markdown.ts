/**
 * The command layer writes CommonMark; Slack reads mrkdwn. `&`, `<` and `>` are escaped everywhere
 * (so model text cannot write `<!channel>` or a link whose label hides its target); only the user
 * mentions the bot writes itself (`<@U123>`) stay live. Bold, links and headings are converted in
 * prose; code spans and fenced blocks keep their text.
 * https://api.slack.com/reference/surfaces/formatting#escaping
 */
const MENTION = /<@[UW][A-Z0-9]+>/g;

export function escapeSlackText(text: string): string {
  const mentions: string[] = [];
  const protectedText = text.replace(MENTION, (mention) => `\u0000${mentions.push(mention) - 1}\u0000`);
  const escaped = protectedText.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped.replace(/\u0000(\d+)\u0000/g, (_, index: string) => mentions[Number(index)] ?? '');
}

export function toSlackMrkdwn(markdown: string): string {
  return escapeSlackText(markdown)
    .split(/(```[\s\S]*?```|`[^`\n]*`)/g)
    .map((segment, index) => (index % 2 === 1 ? segment : convertProse(segment)))
    .join('');
}

function convertProse(text: string): string {
  return text
    .replace(/^#{1,6}\s+(.+)$/gm, '*$1*')
    .replace(/\*\*(.+?)\*\*/g, '*$1*')
    .replace(/__(.+?)__/g, '*$1*')
    .replace(/~~(.+?)~~/g, '~$1~')
    .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, (_, label: string, url: string) => `<${url}|${label.replace(/\|/g, '¦')}>`);
}
