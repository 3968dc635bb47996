/**
 * Assembles streamed `delta.tool_calls[]` fragments into complete calls. Servers differ: the id,
 * the name and the arguments can each arrive in pieces, some repeat the id or the full name in every
 * fragment, and a few omit `index`. Fragments are grouped by `index`; without one, a new id starts a
 * new call and anything else continues the last.
 */

/** One `delta.tool_calls[]` element as received (validated loosely: servers vary). */
export interface ToolCallFragment {
  index?: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/** A call with everything its fragments carried; `id` and `name` may still be empty. */
export interface AssembledToolCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

export interface ToolCallAssembler {
  add(fragment: ToolCallFragment): void;
  /** True once any fragment arrived. */
  readonly hasCalls: boolean;
  /** The calls in index order; generates an id for a call that had none. */
  finish(): AssembledToolCall[];
}

/** Reads one raw `delta.tool_calls[]` element, ignoring fields of the wrong type. */
export function toToolCallFragment(raw: unknown): ToolCallFragment | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const record = raw as Record<string, unknown>;
  const fn = typeof record.function === 'object' && record.function !== null ? (record.function as Record<string, unknown>) : {};
  const fragment: ToolCallFragment = {};
  if (typeof record.index === 'number') fragment.index = record.index;
  if (typeof record.id === 'string' && record.id !== '') fragment.id = record.id;
  if (typeof fn.name === 'string' && fn.name !== '') fragment.name = fn.name;
  if (typeof fn.arguments === 'string') fragment.arguments = fn.arguments;
  // A few servers send already-parsed arguments as an object.
  else if (typeof fn.arguments === 'object' && fn.arguments !== null) fragment.arguments = JSON.stringify(fn.arguments);
  return fragment;
}

/** Creates an assembler for one generation; `idPrefix` names generated ids. */
export function createToolCallAssembler(idPrefix = 'call'): ToolCallAssembler {
  const calls = new Map<number, AssembledToolCall>();
  let lastIndex: number | undefined;

  const target = (fragment: ToolCallFragment): AssembledToolCall => {
    let index = fragment.index;
    if (index === undefined) {
      const last = lastIndex === undefined ? undefined : calls.get(lastIndex);
      const startsNew = last === undefined || (fragment.id !== undefined && last.id !== '' && !sameOrContinues(last.id, fragment.id));
      index = startsNew ? (last === undefined ? 0 : Math.max(...calls.keys()) + 1) : last.index;
    }
    let call = calls.get(index);
    if (!call) {
      call = { index, id: '', name: '', arguments: '' };
      calls.set(index, call);
    }
    lastIndex = index;
    return call;
  };

  return {
    add(fragment) {
      const call = target(fragment);
      if (fragment.id !== undefined) call.id = merge(call.id, fragment.id);
      if (fragment.name !== undefined) call.name = merge(call.name, fragment.name);
      if (fragment.arguments !== undefined) call.arguments += fragment.arguments;
    },
    get hasCalls() {
      return calls.size > 0;
    },
    finish() {
      return [...calls.values()].sort((a, b) => a.index - b.index).map((call, position) => ({ ...call, id: call.id || `${idPrefix}_${position}` }));
    },
  };
}

/** Servers either split a value into pieces or repeat it whole in each fragment; handle both. */
function merge(current: string, piece: string): string {
  if (current === '' || piece.startsWith(current)) return piece;
  return current + piece;
}

function sameOrContinues(current: string, piece: string): boolean {
  return piece === current || piece.startsWith(current);
}
