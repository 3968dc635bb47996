/**
 * The verdict card names the options argued only when the moderator named some (issue 40): no
 * "Options argued: (the moderator named none)" line that reads as a failure.
 */
import { describe, expect, it } from 'vitest';
import { verdictCardText } from '../../../src/commands/workflows/verdict-card.js';
import type { CallVerdict } from '../../../src/core/workflows/call-verdict.js';

const verdict = (options: string[]): CallVerdict => ({
  topic: 'Should we cache the build?',
  moderator: 'Picard',
  options,
  positions: [{ name: 'geordi', aiName: 'Geordi', position: 'Cache it in CI.', vote: 'APPROVE' }],
  decision: 'Cache the build in CI.',
  decisionGiven: true,
  synthesis: 'We agree.',
  tally: [{ vote: 'APPROVE', count: 1 }],
  dissent: [],
});

describe('verdictCardText options line', () => {
  it('leaves the options line out when none were named', () => {
    const text = verdictCardText(verdict([]), 'run-1');
    expect(text).not.toMatch(/Options argued/);
    expect(text).not.toMatch(/named none/);
    expect(text).toMatch(/\*\*Positions and votes\*\* \(1 APPROVE\)/);
  });

  it('lists the options when the moderator named them', () => {
    const text = verdictCardText(verdict(['Cache in CI', 'No cache']), 'run-1');
    expect(text).toMatch(/\*\*Options argued:\*\*\n• Cache in CI\n• No cache/);
  });
});
