/**
 * An approval's prompt on a chat surface (issue 35): the subject fitted to the surface's whole message, and what the
 * copy offers. Every surface shows the whole subject, or does not offer Allow: a copy that shows all of it gets the
 * question's options (Allow, Deny, the grants); a cut one gets Deny, and Review… where the target has an answer link.
 * Pure; each platform builds its message around these parts, and measures it with its own `fits`.
 */
import type { QuestionRecord } from "../record/record.ts";
import { parseTarget } from "../record/targets.ts";
import type { Surface } from "../platforms/surfaces.ts";
import {
  approvalSections,
  DENY,
  fitApproval,
  missingNote,
  NO_LINK_NOTE,
  REVIEW_BUTTON_TEXT,
  REVIEW_NOTE,
  sectionText,
  type ApprovalView,
} from "./approval.ts";
import { promptButtons, SKIP_BUTTON_TEXT, type PromptButton } from "./prompt-buttons.ts";

/** What a chat copy of an approval shows and offers. */
export interface ApprovalPromptParts {
  /** The subject as shown: `view.text` goes in the code block. */
  view: ApprovalView;
  /**
   * Plain text under the block when the subject is cut: what is missing, then the review note (or, with no link,
   * the no-link note); on a surface without URL buttons, the link's line too. Absent when all of it is shown.
   */
  note?: string;
  /** The answer link the Review… button opens (a cut copy whose target has a link). */
  reviewUrl?: string;
  /** The native choices: the question's options, Other… and Skip when whole; Deny (and Skip) when cut. */
  buttons: PromptButton[];
}

/** How a platform shows the link where it has no URL button: a line of the note. */
export const reviewLinkLine = (url: string): string => `${REVIEW_BUTTON_TEXT} ${url}`;

export interface ApprovalFitOptions {
  /** The answer link of this copy's target, when the gateway made one (answerLinkOf). */
  link?: string;
  /** The copy of an expired question that still takes a late answer: no Skip. */
  late?: boolean;
  /** The surface has no URL button: the link goes in the note, as a line of its own (`reviewLinkLine`). */
  linkInText?: boolean;
}

/**
 * The parts of an approval's copy. `fits(text, note)` is the surface's own test of the WHOLE message with `text` in
 * its code block and `note` (or no note) under it, after escaping, against its limit. The whole subject is tried
 * without a note; a cut one is fitted with room for the longest note it could need, so the note never pushes the
 * message past the limit.
 */
export function approvalPromptParts(record: QuestionRecord, fits: (text: string, note: string | undefined) => boolean, options: ApprovalFitOptions = {}): ApprovalPromptParts {
  const subject = record.approval;
  if (!subject) throw new Error("approvalPromptParts: the record is not an approval");
  const late = options.late === true;
  const whole = fitApproval(subject, (text) => fits(text, undefined));
  if (whole.complete) return { view: whole, buttons: promptButtons(record, { late }) };
  const noteOf = (view: Pick<ApprovalView, "missingChars" | "missingFiles">) =>
    [missingNote(view), options.link ? REVIEW_NOTE : NO_LINK_NOTE, ...(options.link && options.linkInText ? [reviewLinkLine(options.link)] : [])].join("\n");
  // The longest note: every character and file missing (the counts only shrink as more is shown).
  const sections = approvalSections(subject);
  const longest = noteOf({ missingChars: sections.map(sectionText).join("\n\n").length, missingFiles: sections.filter((s) => s.kind === "diff").length });
  const view = fitApproval(subject, (text) => fits(text, longest));
  return { view, note: noteOf(view), ...(options.link ? { reviewUrl: options.link } : {}), buttons: denyButtons(record, late) };
}

/** A cut copy's choices: Deny (option 2, so a typed `2` stays Deny), and Skip unless late. Never Allow nor a grant. */
function denyButtons(record: QuestionRecord, late: boolean): PromptButton[] {
  const optionIndex = record.questions[0]?.options.findIndex((o) => o.label === DENY) ?? -1;
  const deny: PromptButton[] = optionIndex >= 0 ? [{ text: DENY, action: { kind: "choice", optionIndex } }] : [];
  return late ? deny : [...deny, { text: SKIP_BUTTON_TEXT, action: { kind: "skip" } }];
}

/**
 * The answer link the gateway made for the target in `chat` on `surface` (record.links), if any: the target's text
 * form is read back (with the chat patterns of the descriptors), so a chat id holding a colon is never taken for another. Only an http(s) URL is
 * used.
 */
export function answerLinkOf(record: Pick<QuestionRecord, "links">, surface: Surface, chat: string | undefined): string | undefined {
  if (chat === undefined) return undefined;
  for (const link of record.links ?? []) {
    const parsed = parseTarget(link.target);
    if (!parsed.ok || parsed.target.surface !== surface || parsed.target.chat !== chat) continue;
    if (/^https?:\/\//iu.test(link.url)) return link.url;
  }
  return undefined;
}
