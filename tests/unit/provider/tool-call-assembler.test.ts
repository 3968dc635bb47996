import { describe, expect, it } from 'vitest';
import { createToolCallAssembler, toToolCallFragment } from '../../../src/core/provider/tool-call-assembler.js';

const feed = (raw: unknown[]) => {
  const assembler = createToolCallAssembler();
  for (const item of raw) {
    const fragment = toToolCallFragment(item);
    if (fragment) assembler.add(fragment);
  }
  return assembler.finish();
};

describe('tool-call assembler', () => {
  it('joins an id, a name and arguments each split over chunks', () => {
    expect(
      feed([
        { index: 0, id: 'call_', function: { name: 'grep_' } },
        { index: 0, id: '9f2', function: { name: 'search', arguments: '{"pat' } },
        { index: 0, function: { arguments: 'tern":"x"}' } },
      ]),
    ).toEqual([{ index: 0, id: 'call_9f2', name: 'grep_search', arguments: '{"pattern":"x"}' }]);
  });

  it('does not double an id or name that a server repeats in every chunk', () => {
    expect(
      feed([
        { index: 0, id: 'call_1', function: { name: 'read_file', arguments: '{"path":' } },
        { index: 0, id: 'call_1', function: { name: 'read_file', arguments: '"a"}' } },
      ]),
    ).toEqual([{ index: 0, id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' }]);
  });

  it('separates calls without index by their ids, and generates missing ids', () => {
    const calls = feed([
      { id: 'a', function: { name: 'list_dir', arguments: '{}' } },
      { id: 'b', function: { name: 'read_file', arguments: '{"path":' } },
      { function: { arguments: '"x"}' } },
      { index: 5, function: { name: 'get_ps_info', arguments: { verbose: true } } },
    ]);
    expect(calls.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['a', 'list_dir', '{}'],
      ['b', 'read_file', '{"path":"x"}'],
      ['call_2', 'get_ps_info', '{"verbose":true}'],
    ]);
  });
});
