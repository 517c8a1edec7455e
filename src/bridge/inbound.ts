import type { GatewayClient } from "../client/index.ts";
import type { Surface } from "../contract/result.ts";
import { GatewayError } from "../kernel/errors.ts";
import { acceptsLateAnswer } from "../record/late-window.ts";
import { looksLikeCredential } from "../parse/index.ts";
import type { QuestionRecord, ResolvedBy, ResolveVia } from "../record/record.ts";
import { GROUP_REPLY_HINTS, renderMissingPrompt, replyHint } from "../render/index.ts";
import { deliveredTo, mayAnswer, writtenBeforeCopy } from "./authorize.ts";
import { effectsToPlatformText, type BridgeEffect, type BridgeResponse, type ReplyEffect } from "./effects.ts";
import type { BridgeUser, InboundEvent, SentNote, TextEvent } from "./events.ts";
import type { InflightSends } from "./inflight-sends.ts";
import type { RecordCache } from "./record-cache.ts";
import { recordedText } from "../render/recorded-text.ts";
import { TEXTS } from "./note-texts.ts";
import { createTypedMatcher } from "./typed-match.ts";

export interface InboundOptions {
  client: GatewayClient;
  surface: Surface;
  allowedUsers: readonly string[];
  cache: RecordCache;
  /** Prompt sends in flight, by chat: a reply that matches nothing waits for them before it is dropped. */
  inflight: InflightSends;
  /** Whether Other… opens a modal (platforms with modals) or asks for a typed reply (the others). */
  otherOpens: "modal" | "reply";
  /** The platform's escaping (the renderer's): every text in a response goes through it. Default: unchanged. */
  toPlatformText?: (text: string) => string;
  log?: (message: string, error?: unknown) => void;
  now?: () => number;
}

/** What a late answer is confirmed with (issue 20 §3): "✅ Recorded (late): Production (option 2)". */
const LATE_PREFIX = "✅ Recorded (late)";

/** The record holds a late answer: the question had expired, and this answer reaches the agent later. */
const answeredLate = (record: QuestionRecord | undefined): boolean => record?.status === "expired" && record.lateAnswer !== undefined;

/** How long a reply that matches nothing waits for the sends in flight to its chat. */
const SEND_SETTLE_MAX_MS = 3_000;

const toast = (text: string): BridgeEffect => ({ toast: text });
/** A reply in answer to the person's message (its thread, a reply to it). */
const say = (text: string, more: Omit<ReplyEffect, "reply"> = {}): ReplyEffect => ({ reply: text, replyTo: true, ...more });
const privately = (text: string): ReplyEffect => say(text, { private: true });

/** A credential: its message taken down where the platform allows, and the person told (privately where possible). */
const CREDENTIAL: BridgeResponse = [
  { delete: true, ifDeleted: { reply: TEXTS.credential, private: true }, otherwise: { reply: TEXTS.credentialNotDeleted, private: true } },
];

/** A resolution's response, and the record it left. */
interface Resolution {
  effects: BridgeResponse;
  record?: QuestionRecord;
}

/**
 * Turns any inbound event into gateway calls and a response. Never throws for user input. Which typed messages count
 * as replies: `createTypedMatcher`.
 */
export function createInboundHandler(options: InboundOptions) {
  const { client, surface, allowedUsers, cache, inflight } = options;
  const now = options.now ?? Date.now;
  const toPlatformText = options.toPlatformText ?? ((text: string) => text);
  const matcher = createTypedMatcher({ surface, allowedUsers, cache, now });
  /** Pending, or expired with its late window open: an answer is taken (late, then). */
  const answerable = (record: QuestionRecord) => record.status === "pending" || acceptsLateAnswer(record, now());

  const by = (event: { user: BridgeUser; chat: string }, via: ResolveVia): ResolvedBy => ({
    surface,
    user: event.user.id,
    ...(event.user.name ? { userName: event.user.name.slice(0, 200) } : {}),
    chat: event.chat,
    via,
  });

  /** Maps gateway failures to what the person is told; a failure is never reported as submitted. */
  function failure(error: unknown): BridgeResponse | undefined {
    if (error instanceof GatewayError) {
      // The same platform message again (a re-delivered update): it was answered the first time.
      if (error.code === "DUPLICATE_REPLY") return undefined;
      if (error.code === "QUESTION_ALREADY_TERMINAL") return [toast(TEXTS.alreadyAnswered), privately(TEXTS.alreadyAnswered)];
      if (error.code === "QUESTION_NOT_FOUND") return [toast(TEXTS.notValid)];
      if (error.code === "CREDENTIAL_REFUSED") return CREDENTIAL;
      if (error.code === "QUESTION_INVALID_ANSWER") return [toast(TEXTS.notValid), say(error.message)];
      // An Allow (or a grant) from a chat whose copy could not show the whole approval: the review-first note,
      // nothing changed (issue 35).
      if (error.code === "REVIEW_REQUIRED") return [toast(error.message), say(error.message)];
    }
    options.log?.("could not submit", error);
    return [toast(TEXTS.notSubmitted), privately(TEXTS.notSubmitted)];
  }

  /** Loads the record a button names and checks it may be used here by this person. */
  async function buttonRecord(event: Extract<InboundEvent, { questionId: string }>): Promise<QuestionRecord | BridgeResponse | undefined> {
    let record: QuestionRecord;
    try {
      record = await client.get(event.questionId);
    } catch (error) {
      return failure(error);
    }
    cache.put(record);
    // The cache also knows the copies this bot sent before the gateway recorded them.
    const known = cache.get(record.id) ?? record;
    if (!deliveredTo(known, surface, event.chat)) return [toast(TEXTS.notValid)];
    // A press stamped before the copy it presses was delivered is a replayed one: nothing, not even a word.
    if (writtenBeforeCopy(known, surface, event.chat, event.sentAtMs)) return undefined;
    if (!mayAnswer(record, surface, event.chat, event.user.id, allowedUsers)) return [toast(TEXTS.someoneElse), privately(TEXTS.someoneElse)];
    if (!answerable(record)) return [toast(TEXTS.alreadyAnswered)];
    return record;
  }

  const messageRefOf = (event: InboundEvent) => (event.kind === "text" && event.messageRef ? { messageRef: event.messageRef } : {});

  async function resolveWith(record: QuestionRecord, answer: string, event: InboundEvent, via: ResolveVia): Promise<Resolution | undefined> {
    const question = record.questions[0]!;
    try {
      const updated = await client.resolve({ id: record.id, answers: { [question.id]: [answer] }, by: by(event, via), ...messageRefOf(event) });
      cache.put(updated);
      if (!answeredLate(updated)) return { effects: [toast(TEXTS.submitted)], record: updated };
      const isLabel = question.options.some((o) => o.label === answer);
      return { effects: [toast(recordedText(record.questions, { [question.id]: [{ value: answer, via: isLabel ? "label" : "text" }] }, LATE_PREFIX))], record: updated };
    } catch (error) {
      const effects = failure(error);
      return effects && { effects };
    }
  }

  async function ownWords(record: QuestionRecord, text: string, event: InboundEvent, via: ResolveVia): Promise<BridgeResponse | undefined> {
    const trimmed = text.trim();
    if (!trimmed) return [say(TEXTS.empty)];
    const question = record.questions[0]!;
    const isLabel = question.options.some((o) => o.label.toLocaleLowerCase() === trimmed.toLocaleLowerCase());
    if (!isLabel && looksLikeCredential(trimmed)) return CREDENTIAL;
    const resolved = await resolveWith(record, trimmed, event, via);
    const late = answeredLate(resolved?.record);
    const given = late ? resolved?.record?.lateAnswer?.answers : resolved?.record?.status === "answered" ? resolved.record.answers : undefined;
    if (resolved && given) {
      const value = given[question.id]?.[0] ?? trimmed;
      const recorded = recordedText(record.questions, { [question.id]: [{ value, via: isLabel ? "label" : "text" }] }, late ? LATE_PREFIX : undefined);
      return [...resolved.effects, say(recorded, { questionId: record.id })];
    }
    return resolved?.effects;
  }

  async function typed(event: TextEvent): Promise<BridgeResponse | undefined> {
    let found = matcher.match(event);
    // A reply made the moment a prompt appeared can arrive before the bot knows that prompt's message id.
    if ((!found || (event.replyToMessageRef && !found.replied)) && inflight.has(event.chat)) {
      await inflight.settled(event.chat, SEND_SETTLE_MAX_MS);
      found = matcher.match(event);
    }
    if (!found) return undefined;
    const { record } = found;
    // Not for this person: in a group the refusal is a mark on their message, never a message to everyone.
    if (!mayAnswer(record, surface, event.chat, event.user.id, allowedUsers)) {
      return event.direct ? [privately(TEXTS.someoneElse)] : [{ react: "refused" }];
    }
    // A reply to a closed prompt is about that prompt: it must never answer another question pending in the chat.
    // An expired one still taking a late answer takes it. The gateway still sees a closed prompt's reply (it refuses
    // it), so that a re-delivered one is known as such and gets no second message.
    const closed = !answerable(record);
    if (closed && !found.replied) return undefined;
    // A credential is taken down wherever it is posted in reply, closed prompt or not.
    if (closed && looksLikeCredential(event.text)) return CREDENTIAL;
    if (closed && !event.messageRef) return [say(TEXTS.alreadyAnswered)];
    const wasLate = record.status !== "pending";
    if (found.ownWords && !closed) {
      matcher.ownWordsTaken(event.chat, event.user.id);
      return ownWords(record, event.text, event, "text");
    }
    let outcome;
    try {
      outcome = await client.reply({ id: record.id, text: event.text, by: by(event, "text"), ...messageRefOf(event) });
    } catch (error) {
      if (closed && error instanceof GatewayError && error.code === "QUESTION_ALREADY_TERMINAL") return [say(TEXTS.alreadyAnswered)];
      if (wasLate && error instanceof GatewayError && error.code === "QUESTION_ALREADY_TERMINAL" && (await stillLate(record.id))) {
        return [say(TEXTS.lateSkip, { questionId: record.id })]; // the one reply a late window refuses: a skip
      }
      return failure(error);
    }
    switch (outcome.kind) {
      case "invalid":
        if (outcome.reason === "credential") return CREDENTIAL;
        return [say(outcome.reason === "empty" ? TEXTS.empty : outcome.message, { questionId: record.id })];
      case "skip":
        cache.put(outcome.record);
        return [say("⏭ Skipped.", { questionId: record.id })];
      case "answered":
        cache.put(outcome.record);
        return [say(recordedText(outcome.record.questions, outcome.readAs, answeredLate(outcome.record) ? LATE_PREFIX : undefined), { questionId: record.id })];
      case "partial": {
        cache.put(outcome.record);
        const recorded = recordedText(outcome.record.questions, outcome.readAs, outcome.record.status === "pending" ? "✅ Recorded so far" : "✅ Recorded so far (late)");
        // In a group the follow-up says how to answer there: a reply to it (or to the prompt) counts.
        const hint = !event.direct && Object.hasOwn(GROUP_REPLY_HINTS, surface) ? replyHint(surface as keyof typeof GROUP_REPLY_HINTS, { chat: "group" }) : undefined;
        const missing = renderMissingPrompt(outcome.record.questions, outcome.missing, hint ? { replyHint: hint } : {});
        return [say(`${recorded}\n\n${missing}`, { questionId: record.id })];
      }
    }
  }

  /** Whether the question still takes a late answer, as the gateway has it now. */
  async function stillLate(id: string): Promise<boolean> {
    try {
      const record = await client.get(id);
      cache.put(record);
      return acceptsLateAnswer(record, now());
    } catch {
      return false;
    }
  }

  async function handleEvent(event: InboundEvent): Promise<BridgeResponse | undefined> {
    if (event.kind === "text") return typed(event);
    const record = await buttonRecord(event);
    if (!record || !("questions" in record)) return record;
    switch (event.kind) {
      case "choice": {
        const question = record.questions[0];
        const option = question?.options[event.optionIndex];
        if (!question || record.questions.length !== 1 || question.multiSelect || !option) return [toast(TEXTS.notValid)];
        return (await resolveWith(record, option.label, event, "button"))?.effects;
      }
      case "skip":
        // An expired question has nothing left to skip; a late answer is still taken.
        if (record.status !== "pending") return [toast(TEXTS.lateSkip), privately(TEXTS.lateSkip)];
        try {
          const updated = await client.resolve({ id: record.id, cancel: true, reason: "skipped", by: by(event, "button") });
          cache.put(updated);
          return [toast(TEXTS.skipped)];
        } catch (error) {
          return failure(error);
        }
      case "other":
        if (options.otherOpens === "modal") return [{ openModal: { questionId: record.id, title: TEXTS.modalTitle, label: record.questions[0]!.question.slice(0, 45) } }];
        matcher.awaitOwnWords(event.chat, event.user.id, record.id);
        return [{ askOwnWords: TEXTS.ownWordsPrompt, questionId: record.id }];
      case "modal":
        return ownWords(record, event.text, event, "modal");
    }
  }

  /** What the platform does: every text as the platform's safe text; no toast for a typed message (toasts answer presses). */
  function finished(event: InboundEvent, effects: BridgeResponse | undefined): BridgeResponse | undefined {
    if (!effects) return undefined;
    return effectsToPlatformText(event.kind === "text" ? effects.filter((effect) => !("toast" in effect)) : effects, toPlatformText);
  }

  return {
    /** Handles one inbound event; resolves to what to tell the person, or undefined when it was not for us. */
    handle: async (event: InboundEvent): Promise<BridgeResponse | undefined> => finished(event, await handleEvent(event)),
    /**
     * The bot is sending a message about a question (the Other… request, a follow-up): once `messageRef` resolves to
     * its id, a reply to it is a reply to that question. A reply that comes while it is in flight waits for it.
     */
    sent(note: Omit<SentNote, "messageRef"> & { messageRef: Promise<string | undefined> }): void {
      const { messageRef, ...about } = note;
      void inflight.track(note.chat, messageRef).then(
        (ref) => ref && matcher.noteSent({ ...about, messageRef: ref }),
        () => {},
      );
    },
  };
}
