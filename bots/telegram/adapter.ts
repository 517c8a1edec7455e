import { GrammyError, HttpError, type Api } from "grammy";
import { PermanentSendError, type SurfaceAdapter } from "../../src/bridge/index.ts";
import { renderTelegramPrompt, renderTelegramSummary, type ChatOptions } from "../../src/render/index.ts";
import { unreachableReason } from "./connection.ts";

/** Telegram answers these for a chat that will never accept the message. */
const PERMANENT = /chat not found|bot was blocked|bot was kicked|user is deactivated|not enough rights|have no rights|CHAT_WRITE_FORBIDDEN|PEER_ID_INVALID/i;

/** Group and channel ids are negative; a private chat's id is the person's (positive). */
const chatOf = (chat: string): ChatOptions => ({ chat: chat.startsWith("-") ? "group" : "direct" });

/** Sends prompts with sendMessage and turns each copy into the summary with editMessageText. A messageRef is the message id. */
export function createTelegramAdapter(api: Api): SurfaceAdapter {
  return {
    surface: "telegram",
    renderedOf: (record, chat) => renderTelegramSummary(record, chatOf(chat)),
    async sendPrompt(record, target) {
      const { text, reply_markup } = renderTelegramPrompt(record, chatOf(target.chat!));
      try {
        const message = await api.sendMessage(target.chat!, text, { ...(reply_markup ? { reply_markup } : {}), link_preview_options: { is_disabled: true } });
        return String(message.message_id);
      } catch (error) {
        if (error instanceof GrammyError && (error.error_code === 403 || PERMANENT.test(error.description))) throw new PermanentSendError(error.description);
        // The reason the gateway records (and the asker's delivery_failed names): the network error, never the URL.
        if (error instanceof HttpError) throw new Error(unreachableReason(error), { cause: error });
        throw error;
      }
    },
    async updatePrompt(record, delivery) {
      const { text, reply_markup } = renderTelegramSummary(record, chatOf(delivery.chat));
      try {
        await api.editMessageText(delivery.chat, Number(delivery.messageRef), text, { ...(reply_markup ? { reply_markup } : {}), link_preview_options: { is_disabled: true } });
      } catch (error) {
        if (error instanceof GrammyError && /message is not modified/i.test(error.description)) return;
        throw error;
      }
    },
  };
}
