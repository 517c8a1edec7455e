/**
 * One signature check for every bot that verifies one: an HMAC of the signed text, and a comparison that takes the
 * same time wherever the two differ (crypto.timingSafeEqual) and is safe for any length (a signature of another
 * length, or anything that is not a string, is simply false).
 */
import { createHmac, timingSafeEqual, type BinaryToTextEncoding } from "node:crypto";

/** The HMAC of `text` with `key`, in `encoding` (hex, base64url…). */
export function hmacOf(key: string | Buffer, text: string | Buffer, encoding: BinaryToTextEncoding = "hex", algorithm = "sha256"): string {
  return createHmac(algorithm, key).update(text).digest(encoding);
}

/** Whether `given` equals `expected`, compared in constant time; false for a different length or a non-string. */
export function sameSecret(given: unknown, expected: string | Buffer): boolean {
  if (typeof given !== "string" && !Buffer.isBuffer(given)) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `signature` is the HMAC of `text` with `key` (after `prefix`, e.g. `sha256=`), compared in constant time. */
export function hmacMatches(signature: unknown, key: string | Buffer, text: string | Buffer, { encoding = "hex", prefix = "" }: { encoding?: BinaryToTextEncoding; prefix?: string } = {}): boolean {
  return sameSecret(signature, prefix + hmacOf(key, text, encoding));
}
