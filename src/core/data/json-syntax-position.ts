/**
 * Finds where a JSON text stops being valid, as a 1-based line and column. `JSON.parse` on Node 20
 * reports a position for some errors and none for others, so the text is scanned here instead.
 */
export interface JsonSyntaxPosition {
  offset: number;
  line: number;
  column: number;
}

/** The position of the first syntax error in `text`, or undefined when the text is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxPosition | undefined {
  const offset = firstInvalidOffset(text);
  return offset === undefined ? undefined : toLineColumn(text, offset);
}

function toLineColumn(text: string, offset: number): JsonSyntaxPosition {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index += 1) {
    if (text[index] === '\n') {
      line += 1;
      lineStart = index + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

class SyntaxStop {
  constructor(readonly offset: number) {}
}

const NUMBER_PATTERN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// Control characters are not allowed raw inside JSON strings; escapes are limited to this set.
const STRING_PATTERN = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;

function firstInvalidOffset(text: string): number | undefined {
  let position = 0;

  const skipWhitespace = (): void => {
    while (position < text.length && ' \t\n\r'.includes(text[position] ?? '')) position += 1;
  };
  const expect = (character: string): void => {
    if (text[position] !== character) throw new SyntaxStop(position);
    position += 1;
  };
  const matchSticky = (pattern: RegExp): void => {
    pattern.lastIndex = position;
    const match = pattern.exec(text);
    if (!match) throw new SyntaxStop(position);
    position += match[0].length;
  };
  const parseValue = (): void => {
    skipWhitespace();
    const character = text[position];
    if (character === '{') return parseContainer('}', true);
    if (character === '[') return parseContainer(']', false);
    if (character === '"') return matchSticky(STRING_PATTERN);
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, position)) {
        position += literal.length;
        return;
      }
    }
    matchSticky(NUMBER_PATTERN);
  };
  const parseContainer = (closing: string, isObject: boolean): void => {
    position += 1;
    skipWhitespace();
    if (text[position] === closing) {
      position += 1;
      return;
    }
    for (;;) {
      if (isObject) {
        skipWhitespace();
        if (text[position] !== '"') throw new SyntaxStop(position);
        matchSticky(STRING_PATTERN);
        skipWhitespace();
        expect(':');
      }
      parseValue();
      skipWhitespace();
      if (text[position] === ',') {
        position += 1;
        continue;
      }
      expect(closing);
      return;
    }
  };

  try {
    parseValue();
    skipWhitespace();
    if (position < text.length) throw new SyntaxStop(position);
    return undefined;
  } catch (error) {
    if (error instanceof SyntaxStop) return error.offset;
    throw error;
  }
}
