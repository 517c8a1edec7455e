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
  sdks: ["grammy", "@grammyjs/"],
});
