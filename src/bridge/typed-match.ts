import type { Surface } from "../contract/result.ts";
import { acceptsLateAnswer } from "../record/late-window.ts";
import type { QuestionRecord } from "../record/record.ts";
import { mayAnswer, namesUser, writtenBeforeCopy } from "./authorize.ts";
import type { SentNote, TextEvent } from "./events.ts";
import type { RecordCache } from "./record-cache.ts";
import { createSentNotes } from "./sent-notes.ts";

/** The question a typed message answers, and how. */
export interface TypedMatch {
  record: QuestionRecord;
  /** It replies to the prompt or to one of the bot's messages about it. */
  replied: boolean;
  /** The person's own words after Other…, not parsed. */
  ownWords: boolean;
}

export interface TypedMatcherOptions {
  surface: Surface;
  allowedUsers: readonly string[];
  cache: RecordCache;
  now?: () => number;
}

const awaitKey = (chat: string, user: string) => `${chat}\u0000${user}`;

/**
 * Which typed messages count as replies, and to which question. In a direct message: any message from the person
 * (their own words after Other…, else the latest question pending there that they may answer). In a group or channel:
 * only a reply to a prompt or to one of the bot's messages about it (a follow-up; the Other… request, and that only
 * from the person who pressed Other…), or a message from a user the question's target names. Other chatter is not
 * ours, whoever writes it. An expired question that still takes a late answer is matched like a pending one by a reply
 * to its prompt; in a direct message, also by any message when no pending question there matches.
 */
export function createTypedMatcher({ surface, allowedUsers, cache, now = Date.now }: TypedMatcherOptions) {
  /** After Other… on a platform without modals: this person's words in that chat answer this question. */
  const awaitingOwnWords = new Map<string, string>();
  const notes = createSentNotes();

  return {
    match(event: TextEvent): TypedMatch | undefined {
      const { chat, user } = event;
      // Written before the question's copy reached this chat (a replayed webhook body): no answer to it.
      const predates = (r: QuestionRecord) => writtenBeforeCopy(r, surface, chat, event.sentAtMs);
      const awaited = awaitingOwnWords.get(awaitKey(chat, user.id));
      if (event.replyToMessageRef) {
        const prompt = cache.byMessageRef(surface, chat, event.replyToMessageRef);
        const note = prompt ? undefined : notes.get(chat, event.replyToMessageRef);
        // Someone else's Other… request: that answer is theirs to give.
        if (note?.ownWordsOf !== undefined && note.ownWordsOf !== user.id) return undefined;
        const record = prompt ?? (note ? cache.get(note.questionId) : undefined);
        if (record && predates(record)) return undefined;
        if (record) return { record, replied: true, ownWords: note?.ownWordsOf !== undefined || awaited === record.id };
      }
      const admits = (r: QuestionRecord) => mayAnswer(r, surface, chat, user.id, allowedUsers) && (event.direct || namesUser(r, surface, chat, user.id)) && !predates(r);
      const pendingAwaited = awaited ? cache.get(awaited) : undefined;
      const answerable = (r: QuestionRecord) => r.status === "pending" || acceptsLateAnswer(r, now());
      if (pendingAwaited && answerable(pendingAwaited) && admits(pendingAwaited)) return { record: pendingAwaited, replied: false, ownWords: true };
      const latest = cache.latestPendingIn(surface, chat, admits) ?? (event.direct ? cache.latestLateIn(surface, chat, now(), admits) : undefined);
      return latest && { record: latest, replied: false, ownWords: false };
    },
    /** Other… was pressed: this person's own words in this chat answer the question. */
    awaitOwnWords: (chat: string, user: string, questionId: string) => void awaitingOwnWords.set(awaitKey(chat, user), questionId),
    ownWordsTaken: (chat: string, user: string) => void awaitingOwnWords.delete(awaitKey(chat, user)),
    /** A message the bot sent about a question: a reply to it is a reply to that question. */
    noteSent: (note: SentNote) => notes.add(note),
  };
}
