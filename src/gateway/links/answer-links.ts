import { randomBytes } from "node:crypto";
import { PLATFORM_LIST } from "../../platforms/descriptors.ts";
import { ANSWER_LINK_PATH, linkedTargetIndexes } from "../../record/answer-links.ts";
import type { AnswerLink, QuestionRecord } from "../../record/record.ts";
import { formatTarget } from "../../record/targets.ts";
import type { QuestionStore } from "../store/kit/types.ts";
import { checkCsrfToken, csrfToken, decodeLinkToken, encodeLinkToken, type LinkSubject } from "./link-token.ts";

/** The name the link key is kept under in the store (one key, shared by every instance on the database). */
export const LINK_KEY_NAME = "answer-links";
const LINK_KEY_BYTES = 32;

/** The surfaces whose descriptor says every question to them gets a link (e-mail). */
const ALWAYS_LINKED = new Set(PLATFORM_LIST.filter((p) => p.answerLinks === true).map((p) => p.surface));

/** The link key: made once (32 random bytes), kept in the store, and the same for every instance that opens it. */
export async function loadLinkKey(store: Pick<QuestionStore, "sharedSecret">): Promise<Buffer> {
  const key = await store.sharedSecret(LINK_KEY_NAME, randomBytes(LINK_KEY_BYTES));
  if (key.length < LINK_KEY_BYTES) throw new Error(`the stored ${LINK_KEY_NAME} key is ${key.length} bytes, not ${LINK_KEY_BYTES}`);
  return key;
}

export type AnswerLinks = ReturnType<typeof createAnswerLinks>;

/**
 * Makes and checks answer links with one key. `baseUrl` is read each time (GATEWAY_PUBLIC_URL, else the gateway's
 * own URL, known once it listens).
 */
export function createAnswerLinks({ key, baseUrl, reachable = () => false }: { key: Buffer; baseUrl: () => string; /** GATEWAY_PUBLIC_URL is set: links reach a phone. */ reachable?: () => boolean }) {
  const base = () => baseUrl().replace(/\/+$/u, "");
  const linked = (record: QuestionRecord) => linkedTargetIndexes(record, ALWAYS_LINKED, reachable());
  return {
    /** The record's links (see QuestionRecord.links), or undefined when no target has one. */
    linksFor(record: QuestionRecord): AnswerLink[] | undefined {
      const indexes = linked(record);
      if (indexes.length === 0) return undefined;
      return indexes.map((index) => ({
        target: formatTarget(record.targets[index]!),
        url: `${base()}${ANSWER_LINK_PATH}${encodeLinkToken(key, { questionId: record.id, targetIndex: index })}`,
      }));
    },

    /** What a token names, when this gateway's key signed it; undefined for anything else. */
    verify: (token: unknown): LinkSubject | undefined => decodeLinkToken(key, token),

    /** True when the record gives that target a link now (a token for a target without one opens nothing). */
    isLinked: (record: QuestionRecord, targetIndex: number): boolean => linked(record).includes(targetIndex),

    csrfToken: (linkToken: string, nonce: string): string => csrfToken(key, linkToken, nonce),
    checkCsrf: (linkToken: string, nonce: unknown, presented: unknown): boolean => checkCsrfToken(key, linkToken, nonce, presented),
  };
}
