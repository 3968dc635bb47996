/**
 * Buttons routed by action id (issue 36): every action id the command layer puts on a button has
 * exactly one owner, and an id nobody owns is not offered to any handler.
 */
import { describe, expect, it } from 'vitest';
import * as actionIds from '../../../src/commands/action-ids.js';
import { BUTTON_OWNERS, buttonOwner } from '../../../src/commands/button-routes.js';

const ids = Object.values(actionIds as Record<string, unknown>).filter((value): value is string => typeof value === 'string');

describe('button routes', () => {
  it('names an owner for every action id of action-ids.ts, and only those', () => {
    expect(ids.length).toBeGreaterThanOrEqual(14);
    for (const id of ids) expect(buttonOwner(id), id).toBeDefined();
    expect(Object.keys(BUTTON_OWNERS).sort()).toEqual([...ids].sort());
  });

  it('routes each button to its own handler', () => {
    expect(buttonOwner(actionIds.APPROVE_ACTION)).toBe('approvals');
    expect(buttonOwner(actionIds.SHOW_WHOLE_FILE_ACTION)).toBe('approvals');
    expect(buttonOwner(actionIds.RUN_PLAN_ACTION)).toBe('plan');
    expect(buttonOwner(actionIds.SECOND_RERUN_ACTION)).toBe('second-opinion');
    expect(buttonOwner(actionIds.STOP_ACTION)).toBe('stop');
    expect(buttonOwner(actionIds.SESSION_STOP_ACTION)).toBe('session-stop');
    expect(buttonOwner(actionIds.VERDICT_REOPEN_ACTION)).toBe('workflow');
  });

  it('owns no unknown id, including the names of Object.prototype', () => {
    for (const id of ['tsuka_unknown', 'toString', '__proto__', 'constructor', '']) expect(buttonOwner(id)).toBeUndefined();
  });
});
