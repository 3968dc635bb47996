/** Splits slash-command text into words, keeping quoted phrases ("…", “…”, '…') whole. */

export interface CommandToken {
  text: string;
  quoted: boolean;
}

const TOKEN = /"([^"]*)"?|“([^”]*)”?|'([^']*)'|(\S+)/g;

export function tokenizeCommand(text: string): CommandToken[] {
  const tokens: CommandToken[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const quoted = match[1] ?? match[2] ?? match[3];
    if (quoted !== undefined) tokens.push({ text: quoted.trim(), quoted: true });
    else tokens.push({ text: match[4]!, quoted: false });
  }
  return tokens;
}
