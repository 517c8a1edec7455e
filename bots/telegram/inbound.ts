import type { Bot, Context } from "grammy";
import { callbackToEvent, TEXTS, type Bridge, type BridgeResponse, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeTelegramCallbackData, toTelegramText } from "../../src/render/index.ts";
import type { Log } from "../shared.ts";

/** The mark on a typed reply from someone who may not answer (a group is never told in public). */
export const TELEGRAM_REFUSED_REACTION = "🙈";

function userOf(ctx: Context): BridgeUser {
  const from = ctx.from!;
  const name = [from.first_name, from.last_name].filter(Boolean).join(" ") || from.username;
  return { id: String(from.id), ...(name ? { name } : {}) };
}

/**
 * Translates Telegram in and out: button presses and typed messages become bridge events; the bridge's response
 * becomes a toast (answerCallbackQuery), a ForceReply asking for the person's own words, a reply, a reaction or a
 * deletion. Only the toast is awaited: every message goes out in the background, so no update waits on a send
 * (Telegram's per-chat limit can hold one back a second), and a failed send is logged.
 */
export function registerTelegramInbound(bot: Bot, bridge: Pick<Bridge, "handle" | "sent">, log: Log): void {
  async function respond(ctx: Context, response: BridgeResponse): Promise<void> {
    const chat = String(ctx.chat!.id);
    const message = ctx.message;
    if (response.markRefused && message) {
      await ctx.react(TELEGRAM_REFUSED_REACTION).catch((error) => log("could not mark a message", error));
    }
    let reply = response.reply;
    if (response.deleteMessage && message) {
      const deleted = await ctx.deleteMessage().then(
        () => true,
        (error) => (log("could not delete a credential message", error), false),
      );
      if (!deleted) reply = response.notDeleted ?? reply;
    }
    if (response.askOwnWords) {
      const from = ctx.from!;
      const inGroup = ctx.chat?.type !== "private";
      const name = toTelegramText(from.first_name);
      const sent = ctx.reply(`${inGroup ? `${name}, ` : ""}${response.askOwnWords.text}`, {
        reply_markup: { force_reply: true, selective: true, input_field_placeholder: "Your answer" },
        ...(inGroup ? { entities: [{ type: "text_mention" as const, offset: 0, length: name.length, user: from }] } : {}),
      });
      bridge.sent({ chat, questionId: response.askOwnWords.questionId, ownWordsOf: String(from.id), messageRef: sent.then((m) => String(m.message_id)) });
      await sent;
    }
    if (reply) {
      const replyTo = message?.message_id;
      const sent = ctx.reply(reply.text, {
        ...(replyTo && !response.deleteMessage ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
        link_preview_options: { is_disabled: true },
      });
      if (response.questionId) bridge.sent({ chat, questionId: response.questionId, messageRef: sent.then((m) => String(m.message_id)) });
      await sent;
    }
  }

  /** Sends what the response says without holding the update. */
  function respondLater(ctx: Context, response: BridgeResponse | undefined): void {
    if (!response) return;
    respond(ctx, response).catch((error) => log(`could not answer update ${ctx.update.update_id}`, error));
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
    // A private reply has no place in the chat: the toast said it.
    respondLater(ctx, response?.reply?.private ? { ...response, reply: undefined } : response);
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
    respondLater(ctx, response);
  });

  bot.catch((error) => log(`update ${error.ctx.update.update_id} failed`, error.error));
}
