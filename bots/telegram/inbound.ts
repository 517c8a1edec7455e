import type { Bot, Context } from "grammy";
import { applyEffects, callbackToEvent, TEXTS, type Bridge, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeTelegramCallbackData } from "../../src/platforms/telegram/callback-data.ts";
import type { Log } from "../shared.ts";
import { telegramMessageOps, telegramPressOps } from "./ops.ts";

function userOf(ctx: Context): BridgeUser {
  const from = ctx.from!;
  const name = [from.first_name, from.last_name].filter(Boolean).join(" ") || from.username;
  return { id: String(from.id), ...(name ? { name } : {}) };
}

/**
 * Translates Telegram in and out: button presses and typed messages become bridge events, and the bridge's response
 * is applied through Telegram's operations (`./ops.ts`): a toast (answerCallbackQuery), a ForceReply asking for the
 * person's own words, a reply, a reaction or a deletion. Only the toast is awaited: every message goes out in the
 * background, so no update waits on a send, and a failed send is logged.
 */
export function registerTelegramInbound(bot: Bot, bridge: Pick<Bridge, "handle" | "sent">, log: Log): void {
  bot.on("callback_query:data", async (ctx) => {
    const chat = ctx.callbackQuery.message?.chat.id;
    const decoded = decodeTelegramCallbackData(ctx.callbackQuery.data);
    if (!decoded || chat === undefined) {
      await ctx.answerCallbackQuery({ text: TEXTS.notValid });
      return;
    }
    const response = await bridge.handle(callbackToEvent(decoded, { user: userOf(ctx), chat: String(chat) }));
    const press = telegramPressOps(ctx, bridge, log);
    await applyEffects(response ?? [], press.ops);
    await press.finish();
  });

  // Helps ops find the chat id to target; a pending question still takes precedence for other text.
  bot.command(["start", "chatid"], async (ctx) => {
    await ctx.reply(`This chat's id is ${ctx.chat.id}. Target it as telegram:${ctx.chat.id}`);
  });

  bot.on("message:text", async (ctx) => {
    const replyTo = ctx.message.reply_to_message?.message_id;
    const response = await bridge.handle({
      kind: "text",
      text: ctx.message.text,
      user: userOf(ctx),
      chat: String(ctx.chat.id),
      direct: ctx.chat.type === "private",
      messageRef: String(ctx.message.message_id),
      ...(replyTo !== undefined ? { replyToMessageRef: String(replyTo) } : {}),
    });
    if (!response) return;
    applyEffects(response, telegramMessageOps(ctx, bridge, log)).catch((error) => log(`could not answer update ${ctx.update.update_id}`, error));
  });

  bot.catch((error) => log(`update ${error.ctx.update.update_id} failed`, error.error));
}
