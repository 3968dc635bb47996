import type { PermissionDecision, PermissionRequest } from '../safety/permission-port.js';

/**
 * What the agent loop needs from the permission manager: one decision per risky call.
 * Structural, so the manager satisfies it without the agent importing it.
 */
export interface PermissionGate {
  check(request: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision>;
}
