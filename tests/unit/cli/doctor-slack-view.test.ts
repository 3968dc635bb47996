/** Doctor's word on Slack's messaging experience (issue 37), from the view events the app recorded. */
import { describe, expect, it } from 'vitest';
import { slackViewVerdict } from '../../../src/cli/doctor-slack-view.js';

const at = Date.UTC(2026, 11, 8, 1, 0, 0);

describe('slackViewVerdict', () => {
  it('an app whose latest view events were the assistant view’s is told what to change in its manifest', () => {
    for (const seen of [{ assistant: at }, { assistant: at, agent: at - 1 }]) {
      const verdict = slackViewVerdict(seen);
      expect(verdict.level).toBe('warn');
      expect(verdict.text).toContain('assistant_thread_started arrived, last at 2026-12-08T01:00:00Z');
      expect(verdict.text).toContain('replace features.assistant_view with features.agent_view and an agent_description (at most 300 characters)');
      expect(verdict.text).toContain('`tsuka manifest slack`');
    }
  });

  it('the agent view is ✓; nothing recorded yet says how to find out', () => {
    expect(slackViewVerdict({ agent: at, assistant: at - 1 })).toEqual({ level: 'ok', text: expect.stringContaining('the agent view') });
    expect(slackViewVerdict(undefined)).toEqual({ level: 'info', text: expect.stringContaining('open the app’s Messages tab once') });
    expect(slackViewVerdict({})).toEqual({ level: 'info', text: expect.stringContaining('no view event recorded yet') });
  });
});
