import type { SentNote } from "./events.ts";

/** Enough for every open question's follow-ups; the oldest are forgotten first. */
const KEEP_MAX = 5_000;

/** The bot's own messages about a question (the Other… request, a follow-up), so a reply to one finds its question. */
export function createSentNotes(keepMax = KEEP_MAX) {
  const notes = new Map<string, SentNote>();
  const key = (chat: string, messageRef: string) => `${chat}\u0000${messageRef}`;
  return {
    add(note: SentNote): void {
      notes.set(key(note.chat, note.messageRef), note);
      if (notes.size > keepMax) notes.delete(notes.keys().next().value!);
    },
    get: (chat: string, messageRef: string): SentNote | undefined => notes.get(key(chat, messageRef)),
  };
}

export type SentNotes = ReturnType<typeof createSentNotes>;
