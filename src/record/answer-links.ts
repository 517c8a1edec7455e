/**
 * Answer links (issue 29 §2), the parts every layer shares: where the page lives, the per-option form of a link,
 * and which of a record's targets have one. Pure: the signing is the gateway's (src/gateway/links/).
 */
import type { QuestionRecord } from "./record.ts";

export type { AnswerLink } from "./record.ts";

/** A link's path: `<base>/a/<token>`. */
export const ANSWER_LINK_PATH = "/a/";

/** The per-option link's query parameters: the question's `id` (its answer key) and the option's 0-based index. */
export const OPTION_LINK_PARAMS = { question: "q", option: "o" } as const;

/**
 * The link that opens the page with one option pre-selected and one Confirm button (an e-mail's per-option links):
 * `<url>?q=<questionId>&o=<optionIndex>`. Opening it answers nothing; the person still confirms.
 */
export function optionLinkUrl(url: string, questionId: string, optionIndex: number): string {
  const query = new URLSearchParams({ [OPTION_LINK_PARAMS.question]: questionId, [OPTION_LINK_PARAMS.option]: String(optionIndex) });
  return `${url}${url.includes("?") ? "&" : "?"}${query.toString()}`;
}

/** What the link rule reads of a record. */
type LinkFields = Pick<QuestionRecord, "targets" | "linksRequested" | "approval">;

/**
 * The indexes in `targets` that get a link: all of them when the request asked for links, or when the record is an
 * approval and the links can reach a phone (`approvalLinks`: GATEWAY_PUBLIC_URL is set), since a chat that cannot
 * show the whole request offers Review… instead of Allow; else those on a surface that always has them
 * (`surfacesWithLinks`: the descriptors with `answerLinks`).
 */
export function linkedTargetIndexes(record: LinkFields, surfacesWithLinks: ReadonlySet<string>, approvalLinks = false): number[] {
  const all = record.linksRequested || (approvalLinks && record.approval !== undefined);
  return record.targets.flatMap((target, index) => (all || surfacesWithLinks.has(target.surface) ? [index] : []));
}
