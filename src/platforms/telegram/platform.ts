/** Telegram, as the shared core knows it (the bot, on grammY, is bots/telegram). */
import type { EnvKit } from "../kit/env.ts";
import { definePlatform, field } from "../kit/descriptor.ts";
import { telegramSurface } from "./surface.ts";
import { toTelegramText } from "./escaping.ts";

/** Telegram callback_data: 1-64 bytes of UTF-8. */
export const TELEGRAM_CALLBACK_DATA_MAX_BYTES = 64;

export const telegram = definePlatform({
  ...telegramSurface,
  exampleChat: "123456789",
  chats: { group: "group", groupAnswer: "reply", replyHint: "In this group, a typed answer counts only as a reply to this message." },
  // An inline keyboard: one full-width row per button; Telegram takes up to 100 buttons.
  buttons: { max: 100, perRow: 1, rows: 100 },
  callbackData: { field: "callback_data", max: TELEGRAM_CALLBACK_DATA_MAX_BYTES, unit: "bytes" },
  env: ({ z, port, optionalText, url, idList }: EnvKit) => ({
    TELEGRAM_BOT_TOKEN: optionalText,
    TELEGRAM_API_ROOT: url,
    TELEGRAM_ALLOWED_USERS: idList,
    TELEGRAM_WEBHOOK_URL: url,
    TELEGRAM_WEBHOOK_SECRET: z
      .string()
      .optional()
      .refine((v) => v === undefined || v === "" || /^[A-Za-z0-9_-]{1,256}$/.test(v), "1-256 characters of A-Z, a-z, 0-9, _ and -"),
    TELEGRAM_WEBHOOK_PORT: port.default(8788),
    /** The interface the webhook listener binds; unset: GATEWAY_HOST (so a loopback gateway can sit beside a proxied webhook). */
    TELEGRAM_WEBHOOK_HOST: optionalText,
  }),
  secrets: ["TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET"],
  tokenVar: "TELEGRAM_BOT_TOKEN",
  portVars: ["TELEGRAM_WEBHOOK_PORT"],
  // Webhook mode (with TELEGRAM_WEBHOOK_URL): the bot serves the URL's path, /telegram/webhook as deploy/ sets it; long polling listens on nothing.
  inbound: { protocol: "http", hostVar: "TELEGRAM_WEBHOOK_HOST", portVar: "TELEGRAM_WEBHOOK_PORT", paths: ["/telegram/webhook"] },
  botHelp: "TELEGRAM_BOT_TOKEN (optional TELEGRAM_API_ROOT, TELEGRAM_ALLOWED_USERS, TELEGRAM_WEBHOOK_URL + _SECRET)",
  apiName: "the Bot API",
  escapeText: toTelegramText,
  credentialShapes: {
    // Bot tokens: the bot id, a colon, then 35 characters; also inside a Bot API URL (…/bot123:AA…/getMe).
    known: [/(?<![A-Za-z0-9_-])[0-9]+:[A-Za-z0-9_-]{35}/u, /\/bot[0-9]+:[A-Za-z0-9_-]{35}/u],
    // Split: the secret part always starts with AA, so "12:30" followed by words never matches.
    split: [{ before: "[A-Za-z0-9_-]", body: "[0-9]{5,12}:AA[A-Za-z0-9_-]{33}", accept: "random" }],
  },
  // getMe: the bot, if the token is one.
  credentialCheck: (env) =>
    typeof env.TELEGRAM_BOT_TOKEN === "string" && env.TELEGRAM_BOT_TOKEN
      ? {
          url: `${String(env.TELEGRAM_API_ROOT ?? "https://api.telegram.org").replace(/\/+$/u, "")}/bot${env.TELEGRAM_BOT_TOKEN}/getMe`,
          // As grammY calls it: POST with a JSON body (the Bot API takes GET too).
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
          read: (status, body) => {
            const name = field(body, "result", "username");
            return status === 200 && name ? { who: `@${name}` } : { why: field(body, "description") ?? `HTTP ${status}` };
          },
        }
      : undefined,
  setup: {
    vars: [{ name: "TELEGRAM_BOT_TOKEN", prompt: "Telegram bot token (from @BotFather: /newbot)", secret: true }],
    allowVar: "TELEGRAM_ALLOWED_USERS",
    pairing: {
      hello: "/start",
      // getUpdates from `cursor`: the first /start (or /start@bot) message names its chat and its sender.
      capture: (env, cursor, waitSeconds) =>
        typeof env.TELEGRAM_BOT_TOKEN === "string" && env.TELEGRAM_BOT_TOKEN
          ? {
              url: `${String(env.TELEGRAM_API_ROOT ?? "https://api.telegram.org").replace(/\/+$/u, "")}/bot${env.TELEGRAM_BOT_TOKEN}/getUpdates`,
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ ...(cursor ? { offset: Number(cursor) } : {}), timeout: waitSeconds, allowed_updates: ["message"] }),
              read: (status, body) => {
                if (status === 409) {
                  const description = field(body, "description") ?? "Conflict";
                  return {
                    why: description,
                    fix: /webhook/iu.test(description)
                      ? "the bot has a webhook set (TELEGRAM_WEBHOOK_URL): stop the bot that set it, or type the ids instead"
                      : "another process is polling this bot: stop the running bot first (`ask-user-bridge start` or `bot telegram`, or any other program using this token), then try again",
                  };
                }
                const updates = (body as { result?: unknown } | null)?.result;
                if (status !== 200 || !Array.isArray(updates)) return { why: field(body, "description") ?? `HTTP ${status}` };
                let next = cursor;
                for (const update of updates as Array<{ update_id?: number; message?: { text?: string; chat?: { id?: number }; from?: { id?: number; username?: string; first_name?: string } } }>) {
                  if (typeof update.update_id !== "number") continue;
                  next = String(update.update_id + 1);
                  const message = update.message;
                  if (/^\/start(@\w+)?(\s|$)/u.test(message?.text ?? "") && message?.chat?.id !== undefined && message.from?.id !== undefined) {
                    const name = message.from.username ? `@${message.from.username}` : message.from.first_name;
                    return { hello: { chat: String(message.chat.id), user: String(message.from.id), ...(name ? { name } : {}) }, cursor: next };
                  }
                }
                return next === undefined ? {} : { cursor: next };
              },
            }
          : undefined,
      user: {
        label: "your Telegram user id",
        where: "send /start to the bot while it runs (`ask-user-bridge start`): it answers with your chat id, which in a private chat is your user id; or ask @userinfobot",
        pattern: "[0-9]{1,20}",
      },
      chat: {
        label: "the chat to ask in (your user id for a private chat, or a group's -100… id)",
        where: "send /start in that chat while the bot runs: it answers with the chat's id",
        pattern: "-?[0-9]{1,20}",
      },
      chatDefaultsToUser: true,
    },
  },
  sdks: ["grammy", "@grammyjs/"],
});
