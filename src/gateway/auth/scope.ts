import { GatewayError } from "../../kernel/errors.ts";
import { isQuestionRecord as isRecord, type AnswerLink, type QuestionRecord, type ResolvedBy } from "../../record/record.ts";
import { webTargetAdmits } from "../../record/targets.ts";
import { forbidden } from "./policy.ts";
import { byShownToPerson, personView } from "./person-view.ts";
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
 * What a caller is shown of a record it may see (issue 37). A link answers as its target, so each caller is shown only
 * the links it may answer through:
 * - a bot, its own surface's (another surface's would let it answer as that surface);
 * - an agent, none of an approval, ever (it could allow its own request as the person), and of its other questions
 *   only those it asked for with `links: true` (to deliver them itself: `ask --links`); not the e-mail links made
 *   for every question;
 * - a person, only its own: the `web` target's and its `web:<name>` target's, and no other target's ids either
 *   (person-view.ts).
 * The admin token and the Control UI's admin session see the record as it is.
 */
export function shownTo(principal: Principal, record: QuestionRecord): QuestionRecord {
  switch (principal.kind) {
    case "bot":
      return withLinks(record, record.links?.filter((link) => link.target.split(":", 1)[0] === principal.surface));
    case "agent":
      return withLinks(record, record.linksRequested && record.approval === undefined ? record.links : undefined);
    case "person":
      return personView(principal.name, record);
    default:
      return record;
  }
}

/** The record with only `links` (none when empty). */
function withLinks(record: QuestionRecord, links: AnswerLink[] | undefined): QuestionRecord {
  if (links === record.links) return record;
  const { links: _all, ...rest } = record;
  return links?.length ? { ...rest, links } : rest;
}

/** Callers shown less than the record: every scoped one. */
const reshapes = (principal: Principal): boolean => principal.kind === "bot" || principal.kind === "agent" || principal.kind === "person";

/**
 * A method's payload as `shownTo` shows it: a record, a list page's `questions`, or an outcome's `record` (and, to a
 * person, the outcome's `answeredBy` as its record's `by`).
 */
export function payloadShownTo(principal: Principal, payload: unknown): unknown {
  if (!reshapes(principal) || typeof payload !== "object" || payload === null) return payload;
  if (isRecord(payload)) return shownTo(principal, payload);
  const { record, questions, answeredBy } = payload as { record?: unknown; questions?: unknown; answeredBy?: unknown };
  if (isRecord(record)) {
    const shown = { ...payload, record: shownTo(principal, record) };
    return principal.kind === "person" && typeof answeredBy === "object" && answeredBy !== null ? { ...shown, answeredBy: byShownToPerson(answeredBy as ResolvedBy) } : shown;
  }
  if (Array.isArray(questions) && questions.every(isRecord)) return { ...payload, questions: questions.map((r) => shownTo(principal, r)) };
  return payload;
}

/**
 * A bot answers (or cancels, or replies to) only a question with a target on its own surface, and only for the people
 * that target names: a target that lists `users` admits those users alone. The chat it names (`by.chat`) is one the
 * question went to on its surface, a target's or a delivered copy's (issue 37 §8): the answer comes through that
 * copy, and the people admitted are that chat's target's. Late answers go through here too.
 */
export function checkBotMayAct(principal: Principal, record: QuestionRecord, by: ResolvedBy | undefined, what: "answer" | "cancel"): void {
  if (principal.kind !== "bot") return;
  const own = record.targets.filter((target) => target.surface === principal.surface);
  if (own.length === 0) throw forbidden(principal, `${what} question ${record.id}: it has no ${principal.surface} target`);
  const chat = by?.chat;
  const delivered = record.deliveries.some((copy) => copy.surface === principal.surface && copy.chat === chat);
  const inChat = chat === undefined ? own : own.filter((target) => target.chat === chat);
  if (chat !== undefined && inChat.length === 0 && !delivered) {
    throw forbidden(principal, `${what} question ${record.id} from chat ${quoted(chat)}: it went to no such ${principal.surface} chat`);
  }
  const user = by?.user;
  if ((inChat.length > 0 ? inChat : own).some((target) => !target.users?.length || (user !== undefined && target.users.includes(user)))) return;
  const who = user === undefined ? "without naming the person" : `for user ${quoted(user)}`;
  throw forbidden(principal, `${what} question ${record.id} ${who}: its ${principal.surface} target is for other people`);
}

const quoted = (id: string): string => JSON.stringify(id).slice(0, 80);
