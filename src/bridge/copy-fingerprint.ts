import { createHash } from "node:crypto";

/**
 * What a copy shows, as a short opaque fingerprint (the first 16 hex of the SHA-256 of the payload's JSON). The
 * record keeps each copy's fingerprint (question.copyRendered), so a restarted bot edits only copies that are behind.
 */
export function renderedFingerprint(payload: unknown): string {
  return createHash("sha256").update(JSON.stringify(payload) ?? "").digest("hex").slice(0, 16);
}
