import type { GatewayClient } from "../client/index.ts";
import type { Surface } from "../contract/result.ts";
import { GatewayError } from "../errors.ts";
import { looksLikeCredential } from "../parse/index.ts";
import type { QuestionRecord, ResolvedBy, ResolveVia } from "../record.ts";
import { renderMissingPrompt } from "../render/index.ts";
import { deliveredTo, mayAnswer } from "./authorize.ts";
import type { BridgeResponse, BridgeUser, InboundEvent } from "./events.ts";
import type { RecordCache } from "./record-cache.ts";
import { recordedText } from "../render/recorded-text.ts";
import { TEXTS } from "./note-texts.ts";

export interface InboundOptions {
  client: GatewayClient;
  surface: Surface;
  allowedUsers: readonly string[];
  cache: RecordCache;
  /** Whether Other… opens a modal (Discord, Slack) or asks for a typed reply (Telegram). */
  otherOpens: "modal" | "reply";
  log?: (message: string, error?: unknown) => void;
}

const awaitKey = (chat: string, user: string) => `${chat}\u0000${user}`;

/** Turns any inbound event into gateway calls and a response. Never throws for user input. */
export function createInboundHandler(options: InboundOptions) {
  const { client, surface, allowedUsers, cache } = options;
  /** After Other… on Telegram: the person's next message in that chat answers this question. */
  const awaitingOwnWords = new Map<string, string>();

  const by = (event: { user: BridgeUser; chat: string }, via: ResolveVia): ResolvedBy => ({
    surface,
    user: event.user.id,
    ...(event.user.name ? { userName: event.user.name.slice(0, 200) } : {}),
    chat: event.chat,
    via,
  });

  /** Maps gateway failures to what the person is told; a failure is never reported as submitted. */
  function failure(error: unknown): BridgeResponse {
    if (error instanceof GatewayError) {
      if (error.code === "QUESTION_ALREADY_TERMINAL") return { toast: TEXTS.alreadyAnswered, reply: { text: TEXTS.alreadyAnswered, private: true } };
      if (error.code === "QUESTION_NOT_FOUND") return { toast: TEXTS.notValid };
      if (error.code === "CREDENTIAL_REFUSED") return { reply: { text: TEXTS.credential }, deleteMessage: true };
      if (error.code === "QUESTION_INVALID_ANSWER") return { toast: TEXTS.notValid, reply: { text: error.message } };
    }
    options.log?.("could not submit", error);
    return { toast: TEXTS.notSubmitted, reply: { text: TEXTS.notSubmitted, private: true } };
  }

  /** Loads the record a button names and checks it may be used here by this person. */
  async function buttonRecord(event: Extract<InboundEvent, { questionId: string }>): Promise<QuestionRecord | BridgeResponse> {
    let record: QuestionRecord;
    try {
      record = await client.get(event.questionId);
    } catch (error) {
      return failure(error);
    }
    cache.put(record);
    // The cache also knows the copies this bot sent before the gateway recorded them.
    if (!deliveredTo(cache.get(record.id) ?? record, surface, event.chat)) return { toast: TEXTS.notValid };
    if (!mayAnswer(record, surface, event.chat, event.user.id, allowedUsers)) return { toast: TEXTS.someoneElse, reply: { text: TEXTS.someoneElse, private: true } };
    if (record.status !== "pending") return { toast: TEXTS.alreadyAnswered };
    return record;
  }

  async function resolveWith(record: QuestionRecord, answer: string, event: InboundEvent, via: ResolveVia): Promise<BridgeResponse> {
    const question = record.questions[0]!;
    try {
      const updated = await client.resolve({ id: record.id, answers: { [question.id]: [answer] }, by: by(event, via) });
      cache.put(updated);
      return { toast: TEXTS.submitted, record: updated };
    } catch (error) {
      return failure(error);
    }
  }

  async function ownWords(record: QuestionRecord, text: string, event: InboundEvent, via: ResolveVia): Promise<BridgeResponse> {
    const trimmed = text.trim();
    if (!trimmed) return { reply: { text: TEXTS.empty } };
    const question = record.questions[0]!;
    const isLabel = question.options.some((o) => o.label.toLocaleLowerCase() === trimmed.toLocaleLowerCase());
    if (!isLabel && looksLikeCredential(trimmed)) return { reply: { text: TEXTS.credential }, deleteMessage: true };
    const response = await resolveWith(record, trimmed, event, via);
    if (response.record?.status === "answered") {
      response.reply = { text: recordedText(record.questions, { [question.id]: [{ value: response.record.answers![question.id]![0]!, via: isLabel ? "label" : "text" }] }) };
    }
    return response;
  }

  async function typed(event: Extract<InboundEvent, { kind: "text" }>): Promise<BridgeResponse | undefined> {
    const key = awaitKey(event.chat, event.user.id);
    const awaited = awaitingOwnWords.get(key);
    const replied = event.replyToMessageRef ? cache.byMessageRef(surface, event.chat, event.replyToMessageRef) : undefined;
    // A reply to a closed prompt is about that prompt: it must never answer another question pending in the chat.
    if (replied && replied.status !== "pending") return { reply: { text: TEXTS.alreadyAnswered } };
    let record = replied ?? (awaited ? cache.get(awaited) : undefined);
    if (!record || record.status !== "pending") {
      record = cache.latestPendingIn(surface, event.chat, (r) => mayAnswer(r, surface, event.chat, event.user.id, allowedUsers));
    }
    if (!record) {
      // A reply to a closed prompt deserves an answer; other chatter in the chat is not ours to answer.
      if (replied) return { reply: { text: TEXTS.alreadyAnswered } };
      if (awaited) awaitingOwnWords.delete(key);
      return undefined;
    }
    if (!mayAnswer(record, surface, event.chat, event.user.id, allowedUsers)) return { reply: { text: TEXTS.someoneElse, private: true } };
    if (awaited === record.id) {
      awaitingOwnWords.delete(key);
      return ownWords(record, event.text, event, "text");
    }
    let outcome;
    try {
      outcome = await client.reply({ id: record.id, text: event.text, by: by(event, "text") });
    } catch (error) {
      return failure(error);
    }
    switch (outcome.kind) {
      case "invalid":
        if (outcome.reason === "credential") return { reply: { text: TEXTS.credential }, deleteMessage: true };
        return { reply: { text: outcome.reason === "empty" ? TEXTS.empty : outcome.message } };
      case "skip":
        cache.put(outcome.record);
        return { reply: { text: "⏭ Skipped." }, record: outcome.record };
      case "answered":
        cache.put(outcome.record);
        return { reply: { text: recordedText(outcome.record.questions, outcome.readAs) }, record: outcome.record };
      case "partial": {
        cache.put(outcome.record);
        const recorded = recordedText(outcome.record.questions, outcome.readAs, "✅ Recorded so far");
        return { reply: { text: `${recorded}\n\n${renderMissingPrompt(outcome.record.questions, outcome.missing)}` }, record: outcome.record };
      }
    }
  }

  return {
    /** Handles one inbound event; resolves to what to tell the person, or undefined when it was not for us. */
    async handle(event: InboundEvent): Promise<BridgeResponse | undefined> {
      if (event.kind === "text") return typed(event);
      const record = await buttonRecord(event);
      if (!("questions" in record)) return record;
      switch (event.kind) {
        case "choice": {
          const question = record.questions[0];
          const option = question?.options[event.optionIndex];
          if (!question || record.questions.length !== 1 || question.multiSelect || !option) return { toast: TEXTS.notValid };
          return resolveWith(record, option.label, event, "button");
        }
        case "skip":
          try {
            const updated = await client.resolve({ id: record.id, cancel: true, reason: "skipped", by: by(event, "button") });
            cache.put(updated);
            return { toast: TEXTS.skipped, record: updated };
          } catch (error) {
            return failure(error);
          }
        case "other":
          if (options.otherOpens === "modal") return { openModal: { questionId: record.id, title: TEXTS.modalTitle, label: record.questions[0]!.question.slice(0, 45) } };
          awaitingOwnWords.set(awaitKey(event.chat, event.user.id), record.id);
          return { askOwnWords: { questionId: record.id, text: TEXTS.ownWordsPrompt } };
        case "modal":
          return ownWords(record, event.text, event, "modal");
      }
    },
  };
}
