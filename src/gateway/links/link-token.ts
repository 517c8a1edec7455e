import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * An answer link's token (issue 29 §2), a versioned encode/decode pair: base64url of
 * `version (1 byte) · target index (1 byte) · question id (ASCII) · HMAC-SHA256 (first 16 bytes)`, the HMAC over
 * everything before it under the gateway's link key. 52 characters for the gateway's own ids. Forged, truncated,
 * tampered or oversized input decodes to undefined and never throws; the length is checked before any work.
 */

export const LINK_TOKEN_VERSION = 1;
/** The MAC's length: 128 bits. */
export const LINK_MAC_BYTES = 16;
/** A question id as a token holds it: printable ASCII, as the protocol's ids (at most 128). */
const ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
/** Targets a token can name (one byte; a question has at most 80: 20, and 20 per escalation step). */
export const LINK_TARGETS_MAX = 256;
/** The longest token: a 128-character id. Anything longer is refused unread. */
export const LINK_TOKEN_MAX_LENGTH = Math.ceil(((2 + 128 + LINK_MAC_BYTES) * 4) / 3);
const TOKEN_PATTERN = /^[A-Za-z0-9_-]+$/;
const MIN_BYTES = 2 + 1 + LINK_MAC_BYTES;

/** What a token names: one question, and one of its targets by its index in `targets`. */
export interface LinkSubject {
  questionId: string;
  targetIndex: number;
}

/** The link key's two uses, kept apart: signing links, and signing the page's CSRF tokens. */
function subKey(key: Buffer, purpose: "link" | "csrf"): Buffer {
  return createHmac("sha256", key).update(`ask-user-bridge answer-${purpose}`).digest();
}

function linkMac(key: Buffer, body: Buffer): Buffer {
  return createHmac("sha256", subKey(key, "link")).update(body).digest().subarray(0, LINK_MAC_BYTES);
}

export function encodeLinkToken(key: Buffer, subject: LinkSubject): string {
  if (!ID_PATTERN.test(subject.questionId)) throw new Error(`a link cannot name the question id ${JSON.stringify(subject.questionId)}`);
  if (!Number.isInteger(subject.targetIndex) || subject.targetIndex < 0 || subject.targetIndex >= LINK_TARGETS_MAX) {
    throw new Error(`a link cannot name target ${subject.targetIndex}`);
  }
  const body = Buffer.concat([Buffer.from([LINK_TOKEN_VERSION, subject.targetIndex]), Buffer.from(subject.questionId, "ascii")]);
  return Buffer.concat([body, linkMac(key, body)]).toString("base64url");
}

/** The subject of a token this key signed; undefined for anything else. */
export function decodeLinkToken(key: Buffer, token: unknown): LinkSubject | undefined {
  if (typeof token !== "string" || token.length > LINK_TOKEN_MAX_LENGTH || !TOKEN_PATTERN.test(token)) return undefined;
  const bytes = Buffer.from(token, "base64url");
  // base64url decoding skips what it cannot read: a token must be exactly what encoding its bytes gives.
  if (bytes.length < MIN_BYTES || bytes.toString("base64url") !== token) return undefined;
  const body = bytes.subarray(0, bytes.length - LINK_MAC_BYTES);
  if (!timingSafeEqual(linkMac(key, body), bytes.subarray(bytes.length - LINK_MAC_BYTES))) return undefined;
  if (body[0] !== LINK_TOKEN_VERSION) return undefined;
  const questionId = body.subarray(2).toString("ascii");
  return ID_PATTERN.test(questionId) ? { questionId, targetIndex: body[1]! } : undefined;
}

/** A form's nonce (the double-submit cookie's value): 16 random bytes, base64url. */
export const CSRF_NONCE_PATTERN = /^[A-Za-z0-9_-]{22}$/;
export const newCsrfNonce = (): string => randomBytes(16).toString("base64url");

/** The form's CSRF token: an HMAC of the link's token and the cookie's nonce, so it fits that page and that browser only. */
export function csrfToken(key: Buffer, linkToken: string, nonce: string): string {
  return createHmac("sha256", subKey(key, "csrf")).update(`${linkToken}\n${nonce}`).digest().subarray(0, 16).toString("base64url");
}

/** True when `presented` is the CSRF token for this link and nonce (compared in constant time). */
export function checkCsrfToken(key: Buffer, linkToken: string, nonce: unknown, presented: unknown): boolean {
  if (typeof nonce !== "string" || !CSRF_NONCE_PATTERN.test(nonce) || typeof presented !== "string" || presented.length !== 22) return false;
  const expected = Buffer.from(csrfToken(key, linkToken, nonce));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(expected, given);
}
