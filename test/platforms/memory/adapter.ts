/**
 * The in-memory platform's SurfaceAdapter: prompts and summaries rendered by the Telegram renderer (the memory
 * platform runs as the surface "telegram": the gateway takes only the registry's surfaces), sent to and edited in
 * the memory platform, which records each call. A message reference is the message id.
 */
import type { SurfaceAdapter } from "../../../src/bridge/index.ts";
import { cutToFit, type ChatOptions } from "../../../src/render/index.ts";
import { toTelegramText } from "../../../src/platforms/telegram/escaping.ts";
import { renderTelegramPrompt, renderTelegramSummary, TELEGRAM_TEXT_MAX, type TelegramMessage } from "../../../src/platforms/telegram/payload.ts";
import type { MemoryButton, MemoryPlatform } from "./fake-api.ts";

/** As on Telegram: group ids are negative, a direct message's chat is the person's id. */
export const chatOf = (chat: string): ChatOptions => ({ chat: chat.startsWith("-") ? "group" : "direct" });

const buttonsOf = (payload: TelegramMessage): MemoryButton[] =>
  (payload.reply_markup?.inline_keyboard ?? []).flat().map((b) => ({ label: b.text, data: b.callback_data ?? `url:${b.url}` }));

export const toMemoryText = (text: string) => cutToFit(text, TELEGRAM_TEXT_MAX, toTelegramText);

export function createMemoryAdapter(platform: MemoryPlatform): SurfaceAdapter {
  const at = (nowMs: number | undefined) => (nowMs !== undefined ? { nowMs } : {});
  return {
    surface: "telegram",
    renderedOf: (record, chat, nowMs) => renderTelegramSummary(record, { ...chatOf(chat), ...at(nowMs) }),
    async sendPrompt(record, target) {
      const payload = renderTelegramPrompt(record, chatOf(target.chat!));
      return platform.sendPrompt(target.chat!, record.id, payload.text, buttonsOf(payload));
    },
    async updatePrompt(record, delivery, nowMs) {
      const payload = renderTelegramSummary(record, { ...chatOf(delivery.chat), ...at(nowMs) });
      await platform.editPrompt(delivery.chat, delivery.messageRef, payload.text, buttonsOf(payload));
    },
    reminders: {
      async send(delivery, text) {
        const message = platform.say(delivery.chat, toMemoryText(text), { replyTo: delivery.messageRef });
        platform.record({ op: "sendReminder", chat: delivery.chat, about: message.id, text: message.text, ok: true });
        return message.id;
      },
      async delete(reminder) {
        const ok = platform.delete(reminder.chat, reminder.messageRef);
        platform.record({ op: "deleteReminder", chat: reminder.chat, about: reminder.messageRef, ok });
        return ok;
      },
      async edit(reminder, text) {
        platform.record({ op: "editReminder", chat: reminder.chat, about: reminder.messageRef, text, ok: true });
        platform.find(reminder.chat, reminder.messageRef).text = toMemoryText(text);
      },
    },
  };
}
