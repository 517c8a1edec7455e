import { createHash } from "node:crypto";
import { MatrixError } from "matrix-js-sdk";
import { PermanentSendError, type SurfaceAdapter } from "../../src/bridge/index.ts";
import { matrixEditContent, matrixMessage, matrixPollEndContent, renderMatrixPrompt, renderMatrixSummary } from "../../src/platforms/matrix/payload.ts";
import type { MatrixApi } from "./client.ts";
import { isRateLimited, retryAfterMs } from "./client.ts";
import { matrixRef, parseMatrixRef, replyRelation } from "./ops.ts";
import type { MatrixRooms } from "./rooms.ts";

const short = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** The error a failed send gives the bridge: permanent for a room the bot can never post in, else retried. */
function sendError(error: unknown, roomId: string): unknown {
  if (error instanceof PermanentSendError) return error;
  if (isRateLimited(error)) return new Error(`matrix: rate limited by the homeserver (M_LIMIT_EXCEEDED, retry after ${retryAfterMs(error)} ms)`, { cause: error });
  if (error instanceof MatrixError && (error.errcode === "M_FORBIDDEN" || error.httpStatus === 403)) {
    return new PermanentSendError(`matrix: the bot may not post in ${roomId} (M_FORBIDDEN: ${error.data?.error ?? "forbidden"}): invite the bot account to the room, and let it send messages there`);
  }
  if (error instanceof MatrixError && (error.errcode === "M_NOT_FOUND" || error.httpStatus === 404)) {
    return new PermanentSendError(`matrix: no room ${roomId} on the homeserver (${error.errcode ?? error.httpStatus}): check the target's room id`);
  }
  return error;
}

export interface MatrixAdapterOptions {
  api: MatrixApi;
  rooms: MatrixRooms;
  /** Each event the bot sends is noted (a reply to it in a thread is then a reply to it). */
  sent?: (eventId: string) => void;
}

/**
 * Sends prompts (a poll for the one single-select question, numbered text otherwise) and turns each copy into its
 * summary with an `m.replace` edit, ending the poll. A messageRef is `<room id>|<event id>` (a DM's room differs from
 * its target, the person's id). Encrypted rooms are refused at once: this bot does not do end-to-end encryption, and
 * a plaintext prompt there would go out unencrypted. A prompt's transaction id is derived from the question and the
 * room, so a send retried after a lost answer is the same event, never a second copy. Reminders are notices in reply
 * to the prompt, redacted (the bot's own events: always allowed) once the question resolves.
 */
export function createMatrixAdapter({ api, rooms, sent = () => {} }: MatrixAdapterOptions): SurfaceAdapter {
  const options = (chat: string, nowMs?: number) => ({ chat: rooms.kindKnown(chat), targetChat: chat, ...(nowMs !== undefined ? { nowMs } : {}) });
  const send = async (roomId: string, type: string, content: Record<string, unknown>, txnId?: string) => {
    const { event_id } = await api.send(roomId, type, content, txnId);
    sent(event_id);
    return event_id;
  };
  return {
    surface: "matrix",
    renderedOf: (record, chat, nowMs) => renderMatrixSummary(record, options(chat, nowMs)),
    async sendPrompt(record, target) {
      const chat = target.chat!;
      let roomId = chat;
      try {
        roomId = await rooms.roomFor(chat);
        if (await rooms.isEncrypted(roomId)) {
          throw new PermanentSendError(
            `matrix: ${chat} is an end-to-end encrypted room, and this bot does not support encryption: target an unencrypted room (encryption cannot be turned off in a room once on)`,
          );
        }
        const kind = chat.startsWith("@") ? "direct" : await rooms.kindOf(roomId);
        const prompt = renderMatrixPrompt(record, { chat: kind, targetChat: chat });
        const eventId = await send(roomId, prompt.type, { ...prompt.content }, `aub-prompt-${record.id}-${short(roomId)}`);
        return matrixRef(roomId, eventId);
      } catch (error) {
        throw sendError(error, roomId);
      }
    },
    async updatePrompt(record, delivery, nowMs) {
      const { roomId, eventId } = parseMatrixRef(delivery.messageRef);
      if (!delivery.chat.startsWith("@")) await rooms.kindOf(roomId); // known again after a restart: the copy says the same
      const copy = renderMatrixSummary(record, options(delivery.chat, nowMs));
      const edit = matrixEditContent(eventId, copy.prompt);
      // The same edit gets the same transaction id: a retry after a lost answer is not a second edit.
      await send(roomId, copy.prompt.type, edit, `aub-edit-${short(`${eventId}\n${JSON.stringify(edit)}`)}`);
      if (copy.pollEnded) await send(roomId, "org.matrix.msc3381.poll.end", matrixPollEndContent(eventId, copy.prompt.content.body), `aub-end-${short(eventId)}`);
    },
    reminders: {
      async send(delivery, text) {
        const { roomId, eventId } = parseMatrixRef(delivery.messageRef);
        try {
          const id = await send(roomId, "m.room.message", { ...matrixMessage(text), "m.relates_to": replyRelation(eventId) });
          return matrixRef(roomId, id);
        } catch (error) {
          throw sendError(error, roomId);
        }
      },
      async delete(reminder) {
        const { roomId, eventId } = parseMatrixRef(reminder.messageRef);
        try {
          await api.redact(roomId, eventId, "the question was resolved");
          return true;
        } catch (error) {
          if (error instanceof MatrixError && (error.errcode === "M_NOT_FOUND" || error.httpStatus === 404)) return true;
          if (error instanceof MatrixError && (error.errcode === "M_FORBIDDEN" || error.httpStatus === 403)) return false;
          throw error;
        }
      },
      async edit(reminder, text) {
        const { roomId, eventId } = parseMatrixRef(reminder.messageRef);
        await send(roomId, "m.room.message", matrixEditContent(eventId, { type: "m.room.message", content: matrixMessage(text) }));
      },
    },
  };
}
