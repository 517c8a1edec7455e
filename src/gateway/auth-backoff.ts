/**
 * Moved to credentials/auth-backoff.ts (issue 26: credentials/ used to import this file back). Only run.ts still
 * imports this path; delete this file once it imports ./credentials/auth-backoff.ts.
 */
export { createAuthBackoff, createGuardedTokenCheck, type TokenVerdict } from "./credentials/auth-backoff.ts";
