/** The approval signer tests use: one fixed key, so stores reopened in a test verify each other's records. */
import { createApprovalSigner } from '../../src/core/store/approval-signature.js';

export const TEST_APPROVAL_KEY = Buffer.alloc(32, 7);
export const testApprovalSigner = createApprovalSigner(TEST_APPROVAL_KEY);
