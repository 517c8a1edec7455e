import type { Context } from "grammy";
import type { Bridge, PlatformOps, ReplyEffect } from "../../src/bridge/index.ts";
import { toTelegramText } from "../../src/platforms/telegram/escaping.ts";
import type { Log } from "../shared.ts";

/** The mark on a typed reply from someone who may not answer (a group is never told in public). */
export const TELEGRAM_REFUSED_REACTION = "🙈";

type Sent = Pick<Bridge, "sent">;

/**
 * A message in the update's chat. Telegram has no private message in a chat: a private reply is said there, in
 * answer to the person's message (unless it was taken down).
 */
async function sendReply(ctx: Context, bridge: Sent, reply: ReplyEffect): Promise<void> {
  const replyTo = reply.replyTo ? ctx.message?.message_id : undefined;
  const sent = ctx.reply(reply.reply, {
    ...(replyTo ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
    link_preview_options: { is_disabled: true },
  });
  if (reply.questionId) bridge.sent({ chat: String(ctx.chat!.id), questionId: reply.questionId, messageRef: sent.then((m) => String(m.message_id)) });
  await sent;
}

/** A ForceReply asking for the person's own words, naming them in a group; only their reply to it counts. */
async function askOwnWords(ctx: Context, bridge: Sent, text: string, questionId: string): Promise<void> {
  const from = ctx.from!;
  const inGroup = ctx.chat?.type !== "private";
  const name = toTelegramText(from.first_name);
  const sent = ctx.reply(`${inGroup ? `${name}, ` : ""}${text}`, {
    reply_markup: { force_reply: true, selective: true, input_field_placeholder: "Your answer" },
    ...(inGroup ? { entities: [{ type: "text_mention" as const, offset: 0, length: name.length, user: from }] } : {}),
  });
  bridge.sent({ chat: String(ctx.chat!.id), questionId, ownWordsOf: String(from.id), messageRef: sent.then((m) => String(m.message_id)) });
  await sent;
}

/** A typed message: a reaction on it, its deletion, replies in the chat. */
export function telegramMessageOps(ctx: Context, bridge: Sent, log: Log): PlatformOps {
  return {
    react: () => ctx.react(TELEGRAM_REFUSED_REACTION).then(
      () => {},
      (error) => log("could not mark a message", error),
    ),
    deleteMessage: () =>
      ctx.deleteMessage().then(
        () => true,
        (error) => (log("could not delete a credential message", error), false),
      ),
    reply: (reply) => sendReply(ctx, bridge, reply),
  };
}

/**
 * A button press: the toast answers the callback query, and every message waits for `finish`, which answers the
 * query (with no toast when there was none: every query is answered) and then sends them in the background, so no
 * update waits on a send (Telegram's per-chat limit can hold one back a second). A failed send is logged.
 */
export function telegramPressOps(ctx: Context, bridge: Sent, log: Log): { ops: PlatformOps; finish(): Promise<void> } {
  let answered: Promise<unknown> | undefined;
  const answer = (options: { text?: string }) => (answered ??= ctx.answerCallbackQuery(options));
  const sends: Array<() => Promise<void>> = [];
  const ops: PlatformOps = {
    toast: async (text) => void (await answer({ text })),
    // A private reply has no place in the chat: the toast said it.
    reply: async (reply) => void (reply.private || sends.push(() => sendReply(ctx, bridge, reply))),
    askOwnWords: async (text, questionId) => void sends.push(() => askOwnWords(ctx, bridge, text, questionId)),
  };
  return {
    ops,
    async finish() {
      await answer({});
      sends
        .reduce((done: Promise<void>, send) => done.then(send), Promise.resolve())
        .catch((error) => log(`could not answer update ${ctx.update.update_id}`, error));
    },
  };
}
