/**
 * E-mail messages: a subject, a plain-text part and an HTML part, the same content in both. A prompt holds the header
 * and the question, each option with its description and its answer link (where the gateway made links for the
 * target), the whole question's link, and how to answer by reply. A sent mail cannot be changed: a copy shows its
 * prompt until the question takes a late answer, when one mail says it was taken (`renderEmailCopy`); any other
 * resolution sends no mail (the answer links say so on the web).
 */
import type { AskUserQuestion } from "../../contract/schema.ts";
import type { QuestionRecord } from "../../record/record.ts";
import { optionLinkUrl } from "../../record/answer-links.ts";
import { cutToFit } from "../../render/text-width.ts";
import { promptTextParts, SEVERAL_MULTI_SELECT_MARK } from "../../render/prompt-text.ts";
import { renderSummary } from "../../render/summary.ts";
import { escapeEmailHtml, toEmailHtml, toEmailText } from "./escaping.ts";
import { EMAIL_SUBJECT_MAX, EMAIL_TEXT_MAX } from "./platform.ts";
import { fitApproval, type ApprovalView } from "../../render/approval.ts";

/** An approval's subject in a mail: always whole (a mail has no real limit), so a mail offers Allow. */
export function emailApprovalView(record: QuestionRecord): ApprovalView | undefined {
  return record.approval ? fitApproval(record.approval, () => true) : undefined;
}

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}


/** What a reply mail says, above each answer link. */
export const EMAIL_OPTION_LINK_TEXT = "Answer";
export const EMAIL_QUESTION_LINK_TEXT = "Answer on the web";
/** The reply guidance where the mail has answer links. */
export const EMAIL_LINKS_GUIDANCE = "Open an answer's link, or reply with a number, a label or your own words.";
/** Where the mail has answer links and several questions or a multi-select one. */
export const EMAIL_LINKS_LINE = "Open an answer's link to answer on the web, or reply:";

const plain = (text: string) => text;


/**
 * The answer link of the record's target in `chat`, if the gateway made one (record.links; none when links are off).
 * Only an http(s) URL is used: anything else is no link of the gateway's.
 */
export function emailLinkOf(record: QuestionRecord, chat: string): string | undefined {
  const links = record.links ?? [];
  const own = `email:${chat}`;
  const url = links.find((l) => l.target === own || l.target.startsWith(`${own}:`))?.url;
  return url && /^https?:\/\//iu.test(url) ? url : undefined;
}

/** A subject line: no line breaks, cut to fit. */
function subjectLine(text: string): string {
  return cutToFit(text.replace(/[\r\n\t]+/gu, " ").trim(), EMAIL_SUBJECT_MAX, plain);
}

export function promptSubject(record: QuestionRecord): string {
  const [first] = record.questions;
  if (record.questions.length === 1 && first) return subjectLine(`${first.header}: ${first.question}`);
  return subjectLine(`${record.questions.length} questions: ${record.questions.map((q) => q.header).join(", ")}`);
}

/** `Re: <subject>`, once. */
export function replySubject(subject: string): string {
  return /^re:/iu.test(subject) ? subject : subjectLine(`Re: ${subject}`);
}

interface Block {
  title: string[];
  options: Array<{ line: string; link?: string }>;
}

function blocksOf(record: QuestionRecord, link: string | undefined): Block[] {
  const several = record.questions.length > 1;
  return record.questions.map((q: AskUserQuestion, i) => ({
    title: several ? [`Question ${i + 1}: ${q.header}${q.multiSelect ? ` ${SEVERAL_MULTI_SELECT_MARK}` : ""}`, q.question] : [q.header, q.question],
    options: q.options.map((o, n) => ({
      line: `${n + 1}. ${o.label}${o.description ? ` - ${o.description}` : ""}`,
      ...(link ? { link: optionLinkUrl(link, q.id, n) } : {}),
    })),
  }));
}

/** The prompt: numbered text with answer links; `lead` is a line above it. */
export function renderEmailPrompt(record: QuestionRecord, options: { chat?: string; lead?: string } = {}): EmailMessage {
  const link = options.chat !== undefined ? emailLinkOf(record, options.chat) : undefined;
  const blocks = blocksOf(record, link);
  // The shared guidance: own words, how to reply (one line per question, comma-separated choices), skip.
  const shared = promptTextParts(record.questions, { layout: "text" }).footer.split("\n");
  const singleChoice = record.questions.length === 1 && !record.questions[0]!.multiSelect;
  // With links, one question of one choice: "open an answer's link, or reply with a number, a label or your own
  // words"; otherwise the link line comes before the shared guidance, which says how to reply to several.
  const footer = !link ? shared : singleChoice ? [shared[0]!, EMAIL_LINKS_GUIDANCE, ...shared.slice(2)] : [shared[0]!, EMAIL_LINKS_LINE, ...shared.slice(1)];
  // An approval's subject, whole, under the question: as it is in the text part (with its marks), a <pre> in the HTML.
  const approvalText = emailApprovalView(record)?.text;
  const textBlocks = blocks.map((b) => [...b.title, ...(approvalText !== undefined ? ["", approvalText] : []), "", ...b.options.flatMap((o) => (o.link ? [o.line, `   ${EMAIL_OPTION_LINK_TEXT}: ${o.link}`] : [o.line]))].join("\n"));
  const body = [options.lead, ...textBlocks, link ? `${EMAIL_QUESTION_LINK_TEXT}: ${link}` : undefined].filter((p) => p !== undefined).join("\n\n");
  const text = cutToFit(body, EMAIL_TEXT_MAX + (approvalText?.length ?? 0), toEmailText, `\n\n${footer.join("\n")}`);
  const href = (url: string) => `<a href="${escapeEmailHtml(url)}">`;
  const htmlBlocks = blocks.map((b) => {
    const [head, ...rest] = b.title;
    const items = b.options.map((o) => `<li>${toEmailHtml(o.line.replace(/^\d+\. /u, ""))}${o.link ? `<br>\n${href(o.link)}${EMAIL_OPTION_LINK_TEXT}</a>` : ""}</li>`);
    const pre = approvalText !== undefined ? `\n<pre>${escapeEmailHtml(toEmailText(approvalText))}</pre>` : "";
    return `<p><strong>${toEmailHtml(head!)}</strong><br>\n${rest.map(toEmailHtml).join("<br>\n")}</p>${pre}\n<ol>\n${items.join("\n")}\n</ol>`;
  });
  const html = [
    options.lead ? `<p>${toEmailHtml(options.lead)}</p>` : undefined,
    ...htmlBlocks,
    link ? `<p>${href(link)}${EMAIL_QUESTION_LINK_TEXT}</a></p>` : undefined,
    `<p>${footer.map(toEmailHtml).join("<br>\n")}</p>`,
  ]
    .filter((p) => p !== undefined)
    .join("\n");
  return { subject: promptSubject(record), text, html: `<!doctype html>\n<html><body>\n${html}\n</body></html>` };
}

/** A reply mail with `text` (a confirmation, a follow-up, a reminder, a late answer taken). */
export function renderEmailReply(subject: string, text: string): EmailMessage {
  const body = cutToFit(text, EMAIL_TEXT_MAX, toEmailText);
  return { subject: replySubject(subject), text: body, html: `<!doctype html>\n<html><body>\n<p>${toEmailHtml(body)}</p>\n</body></html>` };
}

/** Whether the record took a late answer: the one resolution a mail follows. */
export const answeredLate = (record: QuestionRecord): boolean => record.status === "expired" && record.lateAnswer !== undefined;

/**
 * What the copy in `chat` amounts to now, as the mails it was sent: its prompt, and once the question took a late
 * answer, the mail that says it was taken (a reply to the prompt). Any other resolution sends no mail, so the copy
 * stays its prompt: the copy editor finds nothing behind, and sends nothing.
 */
export function renderEmailCopy(record: QuestionRecord, chat: string, nowMs: number = Date.now()): EmailMessage {
  if (answeredLate(record)) return renderEmailReply(promptSubject(record), renderSummary(record, nowMs));
  return renderEmailPrompt(record, { chat });
}
