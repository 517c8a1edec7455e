/**
 * Moved to credentials/auth.ts (issue 26: credentials/ used to import this file back). Only run.ts still imports
 * this path; delete this file once it imports ./credentials/auth.ts.
 */
export { createTokenCheck } from "./credentials/auth.ts";
