import { MatrixError } from "matrix-js-sdk";
import type { Bridge, PlatformOps, ReplyEffect } from "../../src/bridge/index.ts";
import { matrixMessage } from "../../src/platforms/matrix/payload.ts";
import { toMatrixHtml, toMatrixText } from "../../src/platforms/matrix/escaping.ts";
import type { Log } from "../shared.ts";
import type { MatrixApi } from "./client.ts";

/** The mark on a typed reply from someone who may not answer (a room is never told in public). */
export const MATRIX_REFUSED_REACTION = "🙈";

/** A prompt's or a bot message's reference: the room and the event, so a DM (a user target) finds its room. */
export const matrixRef = (roomId: string, eventId: string) => `${roomId}|${eventId}`;
export function parseMatrixRef(ref: string): { roomId: string; eventId: string } {
  const bar = ref.lastIndexOf("|");
  return { roomId: ref.slice(0, bar), eventId: ref.slice(bar + 1) };
}

/** Where a message the bot sends sits: in reply to an event, and in a thread when that event was in one. */
export interface MatrixPlace {
  roomId: string;
  /** The target chat (the person's id in their DM). */
  chat: string;
  replyTo?: string;
  threadRoot?: string;
}

/** `m.relates_to` for a reply to `replyTo`, in the thread `threadRoot` when there is one. */
export function replyRelation(replyTo: string | undefined, threadRoot?: string): Record<string, unknown> | undefined {
  if (threadRoot) return { rel_type: "m.thread", event_id: threadRoot, is_falling_back: !replyTo, "m.in_reply_to": { event_id: replyTo ?? threadRoot } };
  return replyTo ? { "m.in_reply_to": { event_id: replyTo } } : undefined;
}

type Sent = Pick<Bridge, "sent">;

/** Sends a notice (text already safe) at `place`; resolves to its reference. */
export async function sendNotice(api: MatrixApi, place: MatrixPlace, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const relation = replyRelation(place.replyTo, place.threadRoot);
  const content = { ...matrixMessage(text), ...extra, ...(relation ? { "m.relates_to": relation } : {}) };
  const { event_id } = await api.send(place.roomId, "m.room.message", content);
  return matrixRef(place.roomId, event_id);
}

async function reply(api: MatrixApi, bridge: Sent, place: MatrixPlace, effect: ReplyEffect, deleted: () => boolean): Promise<void> {
  const at = effect.replyTo && !deleted() ? place : { roomId: place.roomId, chat: place.chat, ...(place.threadRoot ? { threadRoot: place.threadRoot } : {}) };
  const sent = sendNotice(api, at, effect.reply);
  if (effect.questionId) bridge.sent({ chat: place.chat, questionId: effect.questionId, messageRef: sent });
  await sent;
}

/**
 * The Other… request: names the presser with an intentional mention (a pill and `m.mentions`, the only ping the bot
 * ever sends), their name made safe; only their reply to it counts (in a DM, any message of theirs).
 */
async function askOwnWords(api: MatrixApi, bridge: Sent, place: MatrixPlace, user: { id: string; name?: string }, text: string, questionId: string): Promise<void> {
  const name = toMatrixText(user.name ?? user.id);
  const body = `${name}, ${text}`;
  const sent = sendNotice(api, place, body, {
    formatted_body: `<a href="https://matrix.to/#/${encodeURIComponent(user.id)}">${toMatrixHtml(name)}</a>, ${toMatrixHtml(text)}`,
    "m.mentions": { user_ids: [user.id] },
  });
  bridge.sent({ chat: place.chat, questionId, ownWordsOf: user.id, messageRef: sent });
  await sent;
}

/** A typed message: a reaction on it, its redaction, replies in the room (in its thread when it was in one). */
export function matrixMessageOps(api: MatrixApi, bridge: Sent, place: MatrixPlace & { eventId: string; user: { id: string; name?: string } }, log: Log): PlatformOps {
  let deleted = false;
  return {
    react: () =>
      api
        .send(place.roomId, "m.reaction", { "m.relates_to": { rel_type: "m.annotation", event_id: place.eventId, key: MATRIX_REFUSED_REACTION } })
        .then(
          () => {},
          (error) => log("could not mark a message", error),
        ),
    // Redacting someone else's event needs the room's `redact` power level: without it, the homeserver says M_FORBIDDEN.
    deleteMessage: () =>
      api.redact(place.roomId, place.eventId, "a credential was sent as an answer").then(
        () => (deleted = true),
        (error) => {
          if (!(error instanceof MatrixError && (error.errcode === "M_FORBIDDEN" || error.httpStatus === 403))) log("could not redact a credential message", error);
          return false;
        },
      ),
    reply: (effect) => reply(api, bridge, { ...place, replyTo: place.eventId }, effect, () => deleted),
    askOwnWords: (text, questionId) => askOwnWords(api, bridge, { ...place, replyTo: place.eventId }, place.user, text, questionId),
  };
}

/**
 * A poll vote: Matrix has no toast and no private message in a room, so what a button's toast says is a notice in
 * reply to the vote (a person's vote is theirs: the reply shows whom it answers). Other… asks there too.
 */
export function matrixVoteOps(api: MatrixApi, bridge: Sent, place: MatrixPlace & { eventId: string; user: { id: string; name?: string } }): PlatformOps {
  const at = { ...place, replyTo: place.eventId };
  return {
    toast: async (text) => void (await sendNotice(api, at, text)),
    reply: (effect) => reply(api, bridge, at, effect, () => false),
    askOwnWords: (text, questionId) => askOwnWords(api, bridge, at, place.user, text, questionId),
  };
}
