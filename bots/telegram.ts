import { autoRetry } from "@grammyjs/auto-retry";
import { apiThrottler } from "@grammyjs/transformer-throttler";
import { createServer } from "node:http";
import { Bot, GrammyError, webhookCallback, type Context } from "grammy";
import { createBridge, PermanentSendError, type BridgeResponse, type InboundEvent } from "../src/bridge/index.ts";
import type { Config } from "../src/config.ts";
import { decodeTelegramCallbackData, renderTelegramPrompt, renderTelegramSummary } from "../src/render/index.ts";
import { connectBotToGateway, createLog, type Log, type RunningBot } from "./shared.ts";

/** Telegram answers these for a chat that will never accept the message. */
const PERMANENT = /chat not found|bot was blocked|bot was kicked|user is deactivated|not enough rights|have no rights|CHAT_WRITE_FORBIDDEN|PEER_ID_INVALID/i;

function userOf(ctx: Context) {
  const from = ctx.from!;
  const name = [from.first_name, from.last_name].filter(Boolean).join(" ") || from.username;
  return { id: String(from.id), ...(name ? { name } : {}) };
}

/** The Telegram bot: grammY on the Bot API (or TELEGRAM_API_ROOT), with auto-retry and throttling plugins. */
export interface TelegramBotOptions {
  log?: Log;
  /** Overrides the throttler's limits (the defaults follow Telegram's published limits; tests use faster ones). */
  throttle?: Parameters<typeof apiThrottler>[0];
}

export async function startTelegramBot(config: Config, options: TelegramBotOptions = {}): Promise<RunningBot> {
  const log = options.log ?? createLog("telegram");
  if (!config.TELEGRAM_BOT_TOKEN) throw new Error("TELEGRAM_BOT_TOKEN: is required for the Telegram bot");
  const bot = new Bot(config.TELEGRAM_BOT_TOKEN, config.TELEGRAM_API_ROOT ? { client: { apiRoot: config.TELEGRAM_API_ROOT.replace(/\/+$/, "") } } : {});
  bot.api.config.use(apiThrottler(options.throttle));
  bot.api.config.use(autoRetry({ maxRetryAttempts: 5, maxDelaySeconds: 120 }));

  const client = await connectBotToGateway(config, log);
  const bridge = createBridge({
    client,
    allowedUsers: config.TELEGRAM_ALLOWED_USERS,
    otherOpens: "reply",
    log,
    adapter: {
      surface: "telegram",
      async sendPrompt(record, target) {
        const { text, reply_markup } = renderTelegramPrompt(record);
        try {
          const message = await bot.api.sendMessage(target.chat!, text, { ...(reply_markup ? { reply_markup } : {}), link_preview_options: { is_disabled: true } });
          return String(message.message_id);
        } catch (error) {
          if (error instanceof GrammyError && (error.error_code === 403 || PERMANENT.test(error.description))) throw new PermanentSendError(error.description);
          throw error;
        }
      },
      async updatePrompt(record, delivery) {
        const { text, reply_markup } = renderTelegramSummary(record);
        try {
          await bot.api.editMessageText(delivery.chat, Number(delivery.messageRef), text, { ...(reply_markup ? { reply_markup } : {}), link_preview_options: { is_disabled: true } });
        } catch (error) {
          if (error instanceof GrammyError && /message is not modified/i.test(error.description)) return;
          throw error;
        }
      },
    },
  });

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
      await ctx.answerCallbackQuery({ text: "This button is no longer valid." });
      return;
    }
    const base = { user: userOf(ctx), chat: String(chat), questionId: decoded.questionId };
    const event: InboundEvent =
      decoded.action.kind === "choice" ? { ...base, kind: "choice", optionIndex: decoded.action.optionIndex } : { ...base, kind: decoded.action.kind };
    const response = await bridge.handle(event);
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
  await bridge.start();

  if (config.TELEGRAM_WEBHOOK_URL && config.TELEGRAM_WEBHOOK_SECRET) {
    const path = new URL(config.TELEGRAM_WEBHOOK_URL).pathname;
    const handle = webhookCallback(bot, "http", { secretToken: config.TELEGRAM_WEBHOOK_SECRET });
    const server = createServer((req, res) => {
      if (req.method === "POST" && req.url === path) return void handle(req, res);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(config.TELEGRAM_WEBHOOK_PORT, config.GATEWAY_HOST, resolve));
    await bot.init();
    await bot.api.setWebhook(config.TELEGRAM_WEBHOOK_URL, { secret_token: config.TELEGRAM_WEBHOOK_SECRET, allowed_updates: ["message", "callback_query"] });
    log(`webhook mode on port ${config.TELEGRAM_WEBHOOK_PORT}`);
    return {
      async stop() {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
        client.close();
      },
    };
  }

  void bot.start({ allowed_updates: ["message", "callback_query"], onStart: (me) => log(`long polling as @${me.username}`) }).catch((error) => {
    log("long polling stopped", error);
    process.exitCode = 1;
  });
  return {
    async stop() {
      await bot.stop();
      client.close();
    },
  };
}
