import type { Bot, Context } from "grammy";
import { callbackToEvent, TEXTS, type Bridge, type BridgeResponse, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeTelegramCallbackData } from "../../src/render/index.ts";
import type { Log } from "../shared.ts";

function userOf(ctx: Context): BridgeUser {
  const from = ctx.from!;
  const name = [from.first_name, from.last_name].filter(Boolean).join(" ") || from.username;
  return { id: String(from.id), ...(name ? { name } : {}) };
}

/**
 * Translates Telegram in and out: button presses and typed messages become bridge events; the bridge's response
 * becomes a toast (answerCallbackQuery), a ForceReply asking for the person's own words, a reply or a deletion.
 */
export function registerTelegramInbound(bot: Bot, bridge: Pick<Bridge, "handle">, log: Log): void {
  async function respond(ctx: Context, response: BridgeResponse | undefined): Promise<void> {
    if (!response) return;
    if (response.deleteMessage) await ctx.deleteMessage().catch((error) => log("could not delete a credential message", error));
    if (response.askOwnWords) {
      const from = ctx.from!;
      const inGroup = ctx.chat?.type !== "private";
      const mention = inGroup ? `${from.first_name}, ` : "";
      await ctx.reply(`${mention}${response.askOwnWords.text}`, {
        reply_markup: { force_reply: true, selective: true, input_field_placeholder: "Your answer" },
        ...(inGroup ? { entities: [{ type: "text_mention" as const, offset: 0, length: from.first_name.length, user: from }] } : {}),
      });
    }
    if (response.reply) {
      const replyTo = ctx.message?.message_id;
      await ctx.reply(response.reply.text, {
        ...(replyTo && !response.deleteMessage ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
        link_preview_options: { is_disabled: true },
      });
    }
  }

  bot.on("callback_query:data", async (ctx) => {
    const chat = ctx.callbackQuery.message?.chat.id;
    const decoded = decodeTelegramCallbackData(ctx.callbackQuery.data);
    if (!decoded || chat === undefined) {
      await ctx.answerCallbackQuery({ text: TEXTS.notValid });
      return;
    }
    const response = await bridge.handle(callbackToEvent(decoded, { user: userOf(ctx), chat: String(chat) }));
    await ctx.answerCallbackQuery(response?.toast ? { text: response.toast } : {});
    await respond(ctx, response?.reply?.private ? { ...response, reply: undefined } : response);
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
      ...(replyTo !== undefined ? { replyToMessageRef: String(replyTo) } : {}),
    });
    await respond(ctx, response);
  });

  bot.catch((error) => log(`update ${error.ctx.update.update_id} failed`, error.error));
}
