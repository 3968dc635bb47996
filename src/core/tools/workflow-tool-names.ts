/**
 * Coordination and escalation tools that belong to the multi-agent workflows (/call, /team, /goal).
 * Roles may list them; they are offered only where a workflow registers their implementations,
 * so outside workflows the registry simply does not offer them.
 */
export const WORKFLOW_TOOL_NAMES: readonly string[] = [
  'report_status',
  'route_next',
  'cast_vote',
  'record_decision',
  'post_note',
  'read_notes',
  'send_message',
  'spawn_agent',
  'request_goal',
  'request_team',
  'request_call',
];
