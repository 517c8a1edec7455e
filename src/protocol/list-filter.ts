import type { QuestionRecord, QuestionStatus } from "../record/record.ts";
import type { Surface } from "../platforms/surfaces.ts";

/** A place in question.list's order (newest first: createdAtMs, then id, both descending). */
export interface ListPosition {
  createdAtMs: number;
  id: string;
}

/** `question.list`'s filter, as the store applies it. */
export interface ListFilter {
  status?: QuestionStatus;
  runId?: string;
  sessionKey?: string;
  /** Records a scoped agent credential asked (by its id). */
  askedBy?: string;
  /** Records with a target on this surface. */
  surface?: Surface;
  /** Records with a target in this chat (on `surface`, when that is given too). */
  chat?: string;
  /** true: only records with a late answer (`lateAnswer`). */
  late?: boolean;
  /** At most this many records, newest first. */
  limit?: number;
  /** Only records after this position in the order, i.e. older ones (the next page). */
  before?: ListPosition;
}

/** `question.list`'s params as a caller writes them: a filter, a page size and where the page starts. */
export type ListQuery = Omit<ListFilter, "before"> & {
  /** A previous page's `nextCursor`: this page continues after it. */
  cursor?: string;
};

/** `question.list`'s payload. `nextCursor` is there only when more records may follow. */
export interface ListPage {
  questions: QuestionRecord[];
  nextCursor?: string;
}

/** The page size when `limit` is absent. */
export const LIST_DEFAULT_LIMIT = 100;
/** The most records in one page. A larger `limit` (up to 10,000, as before pages) gets pages of this many. */
export const LIST_MAX_PAGE = 1000;
/**
 * A page also ends once its records reach this many characters of JSON (at least one record per page), so that
 * one response stays small next to a connection's 16 MiB send queue (3 MiB at most, every character non-ASCII).
 */
export const LIST_PAGE_MAX_CHARS = 1024 * 1024;
/** An encoded cursor is far shorter: a version, a time and an id of at most 128 characters. */
export const LIST_CURSOR_MAX_LENGTH = 512;

const CURSOR_VERSION = 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** UTF-8 text as base64url, with the web platform's own functions (this module is bundled for the browser too). */
function toBase64Url(text: string): string {
  const binary = Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join("");
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The inverse of toBase64Url; throws on bytes that are not UTF-8. */
function fromBase64Url(encoded: string): string {
  const binary = atob(encoded.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/** The opaque cursor for "after this record": base64url JSON `{v, t, id}`. */
export function encodeListCursor(position: ListPosition): string {
  return toBase64Url(JSON.stringify({ v: CURSOR_VERSION, t: position.createdAtMs, id: position.id }));
}

/** The position a cursor names, or undefined for anything `encodeListCursor` did not make. Never throws. */
export function decodeListCursor(cursor: unknown): ListPosition | undefined {
  if (typeof cursor !== "string" || cursor.length > LIST_CURSOR_MAX_LENGTH || !BASE64URL.test(cursor)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(fromBase64Url(cursor));
  } catch {
    return undefined;
  }
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded)) return undefined;
  const { v, t, id, ...rest } = decoded as Record<string, unknown>;
  if (v !== CURSOR_VERSION || Object.keys(rest).length > 0) return undefined;
  if (typeof t !== "number" || !Number.isSafeInteger(t) || t < 0) return undefined;
  // No record id holds a NUL, and PostgreSQL could not compare one: such a cursor is not one of ours.
  if (typeof id !== "string" || id.length === 0 || id.length > 128 || id.includes("\u0000")) return undefined;
  return { createdAtMs: t, id };
}

/**
 * One page of question.list: at most `limit` records (default LIST_DEFAULT_LIMIT, at most LIST_MAX_PAGE) after
 * the decoded `cursor`, cut short once they reach LIST_PAGE_MAX_CHARS. One more record than the page holds is read, so that
 * `nextCursor` is only there when another page has records.
 */
export async function listPage(
  params: Omit<ListFilter, "before"> & { cursor?: ListPosition | undefined },
  list: (filter: ListFilter) => Promise<QuestionRecord[]>,
): Promise<ListPage> {
  const { cursor, limit, ...filter } = params;
  const size = Math.min(limit ?? LIST_DEFAULT_LIMIT, LIST_MAX_PAGE);
  const found = await list({ ...filter, ...(cursor ? { before: cursor } : {}), limit: size + 1 });
  const questions: QuestionRecord[] = [];
  let chars = 0;
  for (const record of found.slice(0, size)) {
    chars += JSON.stringify(record).length;
    if (questions.length > 0 && chars > LIST_PAGE_MAX_CHARS) break;
    questions.push(record);
  }
  const last = questions[questions.length - 1];
  return last && found.length > questions.length ? { questions, nextCursor: encodeListCursor(last) } : { questions };
}
