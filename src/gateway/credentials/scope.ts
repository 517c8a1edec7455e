import { GatewayError } from "../../kernel/errors.ts";
import { isQuestionRecord as isRecord, type QuestionRecord, type ResolvedBy } from "../../record/record.ts";
import { webTargetAdmits } from "../../record/targets.ts";
import { forbidden } from "./policy.ts";
import type { Principal } from "./principal.ts";

/**
 * Which questions a caller may see (README "Security"). An agent credential sees only the questions it asked: to it,
 * another credential's question (the admin's included) is as if it did not exist. A person sees only the questions
 * with a `web` target (anyone signed in) or a `web:<its name>` target; to it, the others do not exist either. The
 * admin token, bots and the Control UI's admin session see every question.
 */
export function canSee(principal: Principal, record: Pick<QuestionRecord, "askedBy" | "targets">): boolean {
  if (principal.kind === "agent") return record.askedBy === principal.credentialId;
  if (principal.kind === "person") return record.targets.some((target) => webTargetAdmits(target, principal.name));
  return true;
}

/** The record, when `principal` may see it; QUESTION_NOT_FOUND (as for an unknown id) when it may not. */
export function visibleTo<R extends Pick<QuestionRecord, "id" | "askedBy" | "targets">>(principal: Principal, record: R): R {
  if (!canSee(principal, record)) throw new GatewayError("QUESTION_NOT_FOUND", `no question with id ${record.id}`);
  return record;
}

/**
 * What a caller is shown of a record it may see. A bot sees the answer links of its own surface's targets only: a link
 * answers as its target, so another surface's link would let that bot answer as that surface. An agent never sees the
 * links of an approval (issue 35): with one it could allow its own request as the person. Every other caller sees the
 * record as it is.
 */
export function shownTo(principal: Principal, record: QuestionRecord): QuestionRecord {
  if (!record.links || !hidesLinks(principal)) return record;
  if (principal.kind === "agent" && record.approval === undefined) return record;
  const own = principal.kind === "bot" ? record.links.filter((link) => link.target.split(":", 1)[0] === principal.surface) : [];
  const { links: _all, ...rest } = record;
  return own.length > 0 ? { ...rest, links: own } : rest;
}

/** Callers shown fewer links than a record has: bots (their own surface's) and agents (none of an approval). */
const hidesLinks = (principal: Principal): boolean => principal.kind === "bot" || principal.kind === "agent";

/** A method's payload as `shownTo` shows it: a record, a list page's `questions`, or an outcome's `record`. */
export function payloadShownTo(principal: Principal, payload: unknown): unknown {
  if (!hidesLinks(principal) || typeof payload !== "object" || payload === null) return payload;
  if (isRecord(payload)) return shownTo(principal, payload);
  const { record, questions } = payload as { record?: unknown; questions?: unknown };
  if (isRecord(record)) return { ...payload, record: shownTo(principal, record) };
  if (Array.isArray(questions) && questions.every(isRecord)) return { ...payload, questions: questions.map((r) => shownTo(principal, r)) };
  return payload;
}

/**
 * A bot answers (or cancels, or replies to) only a question with a target on its own surface, and only for the people
 * that target names: a target that lists `users` admits those users alone. Late answers go through here too.
 */
export function checkBotMayAct(principal: Principal, record: QuestionRecord, by: ResolvedBy | undefined, what: "answer" | "cancel"): void {
  if (principal.kind !== "bot") return;
  const own = record.targets.filter((target) => target.surface === principal.surface);
  if (own.length === 0) throw forbidden(principal, `${what} question ${record.id}: it has no ${principal.surface} target`);
  const user = by?.user;
  if (own.some((target) => !target.users?.length || (user !== undefined && target.users.includes(user)))) return;
  const who = user === undefined ? "without naming the person" : `for user ${JSON.stringify(user).slice(0, 80)}`;
  throw forbidden(principal, `${what} question ${record.id} ${who}: its ${principal.surface} target is for other people`);
}
