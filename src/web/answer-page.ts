import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AnswerPageContext } from "../gateway/run.ts";
import type { HttpRoute } from "../gateway/server/server.ts";
import { GatewayError } from "../kernel/errors.ts";
import { acceptsLateAnswer, lateUntilFor } from "../record/late-window.ts";
import { ANSWER_LINK_PATH, OPTION_LINK_PARAMS } from "../record/answer-links.ts";
import type { QuestionRecord, ResolvedBy, Target } from "../record/record.ts";
import { CSRF_NONCE_PATTERN, LINK_TOKEN_MAX_LENGTH, newCsrfNonce } from "../gateway/links/link-token.ts";
import { readBody, SECURITY_HEADERS, sendWith } from "./http-replies.ts";
import { boundPort, isSameOrigin, isSecureRequest, readCookie } from "./session.ts";
import { STATIC_DIR } from "./static-assets.ts";
import { approvalFromForm, choicesFromForm, refusalOf } from "./answer-form.ts";
import { MAX_APPROVAL_BYTES } from "../protocol/index.ts";
import { noChoices, renderEndedPage, renderFormPage, renderMessagePage, type FormChoices } from "./answer-render.ts";

/** A form post is at most this big: three own-words answers of 4000 characters, escaped, and the rest. */
const MAX_FORM_BYTES = 64 * 1024;
/** An editable approval's post may also carry its edit box, as large as the whole subject, percent-encoded (3 bytes each). */
const MAX_APPROVAL_FORM_BYTES = MAX_FORM_BYTES + 3 * MAX_APPROVAL_BYTES;
const CSS_PATH = `${ANSWER_LINK_PATH}answer.css`;
/** How long the CSRF cookie lives: longer than any question (an hour) and its late window (7 days at most). */
const NONCE_MAX_AGE_SECONDS = 8 * 24 * 60 * 60;

const HEADERS = {
  ...SECURITY_HEADERS,
  "x-robots-tag": "noindex, nofollow",
};
const HTML = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };

const INVALID = renderMessagePage("This link is not valid", "Check that you opened the whole link. If it came in a message, ask the sender for a new one.");
const FORGED_POST = renderMessagePage(
  "This form could not be sent",
  "It did not come from this page in this browser (or the browser kept back its cookie). Open the link again and answer from there; nothing was recorded.",
);

const NOT_OPEN = "Your answer was not recorded: this question is no longer open.";

/** The CSRF cookie (its value is the form's nonce), per port like the session cookie; Lax so a link opened from mail reuses it. */
const nonceCookieName = (req: IncomingMessage) => `aub_answer_${boundPort(req) ?? 0}`;

const send = sendWith(HEADERS);


/**
 * Who answered through a link: the link's target (its surface and chat, and its user when it names exactly one),
 * by way of the web page. Summaries read "Answered in <platform> by <user>", as for an answer in that chat.
 */
export function linkResolvedBy(target: Target): ResolvedBy {
  return {
    surface: target.surface,
    ...(target.chat ? { chat: target.chat } : {}),
    ...(target.users?.length === 1 ? { user: target.users[0]! } : {}),
    via: "web",
  };
}

/** The option a per-option link pre-selects (`?q=<questionId>&o=<optionIndex>`), when it names one of the record's. */
function preselected(record: QuestionRecord, query: URLSearchParams): { choices: FormChoices; confirm: boolean } {
  const choices = noChoices();
  const qid = query.get(OPTION_LINK_PARAMS.question);
  const index = query.get(OPTION_LINK_PARAMS.option);
  const question = record.questions.find((q) => q.id === qid);
  if (!question || index === null || !/^[0-9]$/.test(index) || Number(index) >= question.options.length) return { choices, confirm: false };
  choices.options.set(question.id, [Number(index)]);
  return { choices, confirm: true };
}

/** How the page treats the record now: open, open for a late answer, or ended (a pending record past expiry reads expired). */
function stateOf(record: QuestionRecord, nowMs: number): { open: boolean; late: boolean; shown: QuestionRecord } {
  if (record.status === "pending" && nowMs < record.expiresAtMs) return { open: true, late: false, shown: record };
  if (record.status === "pending") {
    const lateUntilMs = lateUntilFor(record, record.expiresAtMs);
    const shown: QuestionRecord = { ...record, status: "expired", reason: "expired", resolvedAtMs: record.expiresAtMs, ...(lateUntilMs ? { lateUntilMs } : {}) };
    return { open: acceptsLateAnswer(shown, nowMs), late: true, shown };
  }
  return { open: acceptsLateAnswer(record, nowMs), late: true, shown: record };
}

/**
 * The answer links' page (issue 29 §2): `GET /a/<token>` shows the question (never answers: link scanners and chat
 * previews open links), `POST /a/<token>` answers it from that page (same origin, with the form's CSRF token and its
 * cookie), and `/a/answer.css` styles it. No sign-in: the signed link is the permission, for its one question and
 * target. A forged, tampered or unknown link gets the same 404, so it never tells whether a question exists.
 */
export function createAnswerPage({ links, questions, now = Date.now }: AnswerPageContext & { now?: () => number }): HttpRoute[] {
  // The page's own rules, then an approval's subject as the Control UI draws it too (one stylesheet for both).
  const css = Buffer.concat([readFileSync(join(STATIC_DIR, "answer.css")), readFileSync(join(STATIC_DIR, "approval.css"))]);

  /** The record and target a token opens, or undefined: not signed by this gateway, no such question, no such link. */
  async function open(token: string): Promise<{ record: QuestionRecord; target: Target; targetIndex: number } | undefined> {
    const subject = links.verify(token);
    if (!subject) return undefined;
    let record: QuestionRecord;
    // Only a token this gateway signed gets this far: the store is never asked about a forged one.
    try {
      record = await questions.get(subject.questionId);
    } catch (error) {
      if (error instanceof GatewayError && error.code === "QUESTION_NOT_FOUND") return undefined;
      throw error;
    }
    const target = record.targets[subject.targetIndex];
    return target && links.isLinked(record, subject.targetIndex) ? { record, target, targetIndex: subject.targetIndex } : undefined;
  }

  function nonceOf(req: IncomingMessage): string | undefined {
    const nonce = readCookie(req.headers.cookie, nonceCookieName(req));
    return nonce !== undefined && CSRF_NONCE_PATTERN.test(nonce) ? nonce : undefined;
  }

  function nonceCookie(req: IncomingMessage, nonce: string): string {
    return `${nonceCookieName(req)}=${nonce}; Path=/; Max-Age=${NONCE_MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax${isSecureRequest(req) ? "; Secure" : ""}`;
  }

  /** The form, or how it ended. The cookie's nonce is kept (every open tab's form stays valid), or made. */
  function show(req: IncomingMessage, res: ServerResponse, token: string, record: QuestionRecord, view: { status?: number; choices?: FormChoices; confirm?: boolean; error?: { qid?: string; text: string }; notice?: string; editText?: string }, head = false): void {
    const nowMs = now();
    const state = stateOf(record, nowMs);
    if (!state.open) return send(res, view.status ?? 200, HTML, renderEndedPage(state.shown, nowMs, view.notice), head);
    const nonce = nonceOf(req) ?? newCsrfNonce();
    const html = renderFormPage({
      record,
      csrf: links.csrfToken(token, nonce),
      choices: view.choices ?? noChoices(),
      confirm: view.confirm ?? false,
      late: state.late,
      ...(view.error ? { error: view.error } : {}),
      ...(view.editText !== undefined ? { editText: view.editText } : {}),
    });
    send(res, view.status ?? 200, { ...HTML, "set-cookie": nonceCookie(req, nonce) }, html, head);
  }

  async function answer(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    // A forged link is refused before its body is read.
    if (!links.verify(token)) {
      req.resume();
      return send(res, 404, HTML, INVALID);
    }
    const opened = await open(token);
    if (!opened) {
      req.resume();
      return send(res, 404, HTML, INVALID);
    }
    const body = await readBody(req, opened.record.approval?.editable ? MAX_APPROVAL_FORM_BYTES : MAX_FORM_BYTES);
    if (body === undefined) return send(res, 413, HTML, renderMessagePage("This answer is too long", "Go back, shorten your own words and try again."));
    const form = new URLSearchParams(body);
    if (!isSameOrigin(req) || !links.checkCsrf(token, nonceOf(req), form.get("csrf"))) return send(res, 403, HTML, FORGED_POST);
    const { record, target } = opened;
    const state = stateOf(record, now());
    // A replayed post, or one from a page left open: the outcome, and nothing recorded.
    if (!state.open) return show(req, res, token, record, { status: 409, notice: NOT_OPEN });
    const by = linkResolvedBy(target);
    const choices = choicesFromForm(record, form);
    const approval = approvalFromForm(record, form, choices.answers);
    const editText = approval.text;
    try {
      if (form.get("action") === "skip") {
        if (state.late) return show(req, res, token, record, { status: 422, choices, error: { text: "A late answer cannot be a skip." } });
        await questions.resolve({ id: record.id, cancel: true, reason: "skipped", by });
      } else {
        if (choices.problem) return show(req, res, token, record, { status: 422, choices, error: choices.problem, editText });
        // A problem with the edit (invalid JSON, an empty command): said on the page, and nothing sent.
        if (approval.problem) return show(req, res, token, record, { status: 422, choices, error: approval.problem, editText });
        await questions.resolve({ id: record.id, answers: approval.answers, by, ...(approval.edit ? { edit: approval.edit } : {}) });
      }
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      if (error.code === "QUESTION_ALREADY_TERMINAL") {
        return show(req, res, token, await questions.get(record.id), { status: 409, notice: NOT_OPEN });
      }
      const refusal = refusalOf(record, error);
      if (!refusal) throw error;
      if (error.code === "CREDENTIAL_REFUSED" && refusal.qid) choices.own.delete(refusal.qid);
      return show(req, res, token, record, { status: 422, choices, error: refusal, editText });
    }
    // Post/redirect/get: a reload shows the outcome and never posts again. Relative (the token), so that it also holds
    // behind a proxy that serves the gateway under a path of GATEWAY_PUBLIC_URL.
    send(res, 303, { location: token, "cache-control": "no-store" }, "");
  }

  const route: HttpRoute = async (req, res) => {
    const url = new URL(req.url ?? "/", "http://gateway");
    if (!url.pathname.startsWith(ANSWER_LINK_PATH)) return false;
    try {
      await serve(req, res, url);
    } catch (error) {
      // The store is down (or another instance's): a page that says to try again, never a JSON error 500.
      if (!(error instanceof GatewayError && error.code === "STORE_UNAVAILABLE") || res.headersSent) throw error;
      send(res, 503, { ...HTML, "retry-after": "5" }, renderMessagePage("Try again in a moment", "The gateway cannot reach its store right now. Nothing was recorded."));
    }
    return true;
  };

  async function serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const head = req.method === "HEAD";
    const readable = req.method === "GET" || head;
    if (url.pathname === CSS_PATH && readable) {
      return send(res, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" }, css, head);
    }
    const token = url.pathname.slice(ANSWER_LINK_PATH.length);
    // Bounded before any work: a path this long is no token.
    if (token.length > LINK_TOKEN_MAX_LENGTH || token.includes("/")) {
      req.resume();
      return send(res, 404, HTML, INVALID, head);
    }
    if (req.method === "POST") return answer(req, res, token);
    req.resume();
    if (!readable) return send(res, 405, { ...HTML, allow: "GET, HEAD, POST" }, renderMessagePage("Not allowed", "Open the link in a browser."));
    const opened = await open(token);
    if (!opened) return send(res, 404, HTML, INVALID, head);
    const { choices, confirm } = preselected(opened.record, url.searchParams);
    show(req, res, token, opened.record, { choices, confirm }, head);
  }

  return [route];
}
