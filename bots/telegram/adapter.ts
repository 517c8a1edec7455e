import { GrammyError, HttpError, type Api } from "grammy";
import { PermanentSendError, type SurfaceAdapter } from "../../src/bridge/index.ts";
import { cutToFit, type ChatOptions } from "../../src/render/index.ts";
import { renderTelegramPrompt, renderTelegramSummary, TELEGRAM_TEXT_MAX } from "../../src/platforms/telegram/payload.ts";
import { toTelegramText } from "../../src/platforms/telegram/escaping.ts";
import { unreachableReason } from "./connection.ts";

/** Telegram answers these for a chat that will never accept the message. */
const PERMANENT = /chat not found|bot was blocked|bot was kicked|user is deactivated|not enough rights|have no rights|CHAT_WRITE_FORBIDDEN|PEER_ID_INVALID/i;

/** Group and channel ids are negative; a private chat's id is the person's (positive). */
const chatOf = (chat: string): ChatOptions => ({ chat: chat.startsWith("-") ? "group" : "direct" });

/** A failed send as the bridge takes it: permanent for a chat that will never accept it, else retried. */
function sendError(error: unknown): unknown {
  if (error instanceof GrammyError && (error.error_code === 403 || PERMANENT.test(error.description))) return new PermanentSendError(error.description);
  // The reason the gateway records (and the asker's delivery_failed names): the network error, never the URL.
  if (error instanceof HttpError) return new Error(unreachableReason(error), { cause: error });
  return error;
}

/** Telegram answers these to a delete of a message that is already gone. */
const GONE = /message to delete not found|MESSAGE_ID_INVALID/i;

/**
 * Sends prompts with sendMessage and turns each copy into the summary with editMessageText. A messageRef is the
 * message id. A reminder is a reply to the prompt (reply_parameters), deleted once the question resolves (a bot may
 * delete its own messages for 48 hours; after that it is edited instead).
 */
export function createTelegramAdapter(api: Api): SurfaceAdapter {
  return {
    surface: "telegram",
    renderedOf: (record, chat, nowMs) => renderTelegramSummary(record, { ...chatOf(chat), targetChat: chat, ...(nowMs !== undefined ? { nowMs } : {}) }),
    async sendPrompt(record, target) {
      // An approval's subject is a `pre` entity: the entities go with the text (no parse_mode), on send and on edit.
      const { text, entities, reply_markup } = renderTelegramPrompt(record, { ...chatOf(target.chat!), targetChat: target.chat! });
      try {
        const message = await api.sendMessage(target.chat!, text, { ...(entities ? { entities } : {}), ...(reply_markup ? { reply_markup } : {}), link_preview_options: { is_disabled: true } });
        return String(message.message_id);
      } catch (error) {
        throw sendError(error);
      }
    },
    async updatePrompt(record, delivery, nowMs) {
      const { text, entities, reply_markup } = renderTelegramSummary(record, { ...chatOf(delivery.chat), targetChat: delivery.chat, ...(nowMs !== undefined ? { nowMs } : {}) });
      try {
        await api.editMessageText(delivery.chat, Number(delivery.messageRef), text, { ...(entities ? { entities } : {}), ...(reply_markup ? { reply_markup } : {}), link_preview_options: { is_disabled: true } });
      } catch (error) {
        if (error instanceof GrammyError && /message is not modified/i.test(error.description)) return;
        throw error;
      }
    },
    reminders: {
      async send(delivery, text) {
        try {
          const message = await api.sendMessage(delivery.chat, cutToFit(text, TELEGRAM_TEXT_MAX, toTelegramText), {
            reply_parameters: { message_id: Number(delivery.messageRef), allow_sending_without_reply: true },
            link_preview_options: { is_disabled: true },
          });
          return String(message.message_id);
        } catch (error) {
          throw sendError(error);
        }
      },
      async delete(reminder) {
        try {
          await api.deleteMessage(reminder.chat, Number(reminder.messageRef));
          return true;
        } catch (error) {
          if (error instanceof GrammyError && GONE.test(error.description)) return true;
          if (error instanceof GrammyError && error.error_code === 400) return false; // "message can't be deleted"
          throw error;
        }
      },
      async edit(reminder, text) {
        try {
          await api.editMessageText(reminder.chat, Number(reminder.messageRef), cutToFit(text, TELEGRAM_TEXT_MAX, toTelegramText), { link_preview_options: { is_disabled: true } });
        } catch (error) {
          if (error instanceof GrammyError && /message is not modified|message to edit not found/i.test(error.description)) return;
          throw error;
        }
      },
    },
  };
}
