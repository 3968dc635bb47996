/**
 * Collects a child's interleaved output under a byte cap, keeping the head and the tail — where
 * the command line and the error summary usually are — and dropping the middle.
 */

export interface OutputCollector {
  push(chunk: Buffer): void;
  /** The collected text; when over the cap, head + a note on what was dropped + tail. */
  text(): string;
  readonly truncated: boolean;
  /** Every byte pushed so far, kept or not. */
  readonly totalBytes: number;
}

/** Creates a collector keeping at most `maxBytes` of output (half head, half tail). */
export function createOutputCollector(maxBytes: number): OutputCollector {
  const headLimit = Math.floor(maxBytes / 2);
  const tailLimit = maxBytes - headLimit;
  const head: Buffer[] = [];
  let headBytes = 0;
  let tail: Buffer[] = [];
  let tailBytes = 0;
  let totalBytes = 0;

  const compactTail = (): void => {
    const joined = Buffer.concat(tail);
    const kept = joined.subarray(Math.max(0, joined.length - tailLimit));
    tail = [kept];
    tailBytes = kept.length;
  };

  return {
    push(chunk: Buffer): void {
      totalBytes += chunk.length;
      let rest = chunk;
      if (headBytes < headLimit) {
        const taken = rest.subarray(0, headLimit - headBytes);
        head.push(taken);
        headBytes += taken.length;
        rest = rest.subarray(taken.length);
      }
      if (rest.length === 0) return;
      tail.push(rest);
      tailBytes += rest.length;
      // Compacting only at twice the limit keeps pushes amortised O(1).
      if (tailBytes > tailLimit * 2) compactTail();
    },
    text(): string {
      if (totalBytes <= maxBytes) return Buffer.concat([...head, ...tail]).toString('utf8');
      compactTail();
      const omitted = totalBytes - headBytes - tailBytes;
      const note = `\n[… ${omitted} bytes of output omitted; showing the first ${headBytes} and the last ${tailBytes} bytes …]\n`;
      return Buffer.concat(head).toString('utf8') + note + Buffer.concat(tail).toString('utf8');
    },
    get truncated(): boolean {
      return totalBytes > maxBytes;
    },
    get totalBytes(): number {
      return totalBytes;
    },
  };
}
