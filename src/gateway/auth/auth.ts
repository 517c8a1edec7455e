import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** Compares a presented token with the gateway token in constant time (hashing evens out the lengths). */
export function createTokenCheck(token: string): (presented: unknown) => boolean {
  const expected = digest(token);
  return (presented) => typeof presented === "string" && presented.length > 0 && timingSafeEqual(digest(presented), expected);
}

/** The token from an `Authorization: Bearer …` header, if any. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}
