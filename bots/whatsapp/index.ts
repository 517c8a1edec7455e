import { requireConfig, type Config } from "../../src/runtime/config.ts";
import { cutToFit } from "../../src/render/index.ts";
import { toWhatsAppText } from "../../src/platforms/whatsapp/escaping.ts";
import { WHATSAPP_GRAPH_VERSION, WHATSAPP_TEXT_MAX } from "../../src/platforms/whatsapp/platform.ts";
import { createLog, startBridgeBot, type Log, type RunningBot } from "../shared.ts";
import { createWhatsAppAdapter, parseTemplateSetting } from "./adapter.ts";
import { createGraphApi, type GraphApiRetry } from "./graph-api.ts";
import { createWhatsAppInbound } from "./inbound.ts";
import type { BucketPace } from "../kit/paces.ts";
import { createWhatsAppPacer } from "./pacing.ts";
import { createWebhookHandler, listenWebhook } from "./webhook.ts";
import { createConversationWindows } from "./windows.ts";

export interface WhatsAppBotOptions {
  log?: Log;
  /** The per-recipient pace (default Meta's pair rate: 1 message every 6 s, bursts of 45). */
  pace?: BucketPace;
  /** The number's throughput (default Meta's 80 messages a second). */
  throughput?: BucketPace;
  /** How rate-limited calls are retried (default 1 s, 2 s, 4 s … 6 tries). */
  retry?: GraphApiRetry;
  /** Marks each handled message as read (default true). */
  markRead?: boolean;
}

/**
 * The WhatsApp bot: the Cloud API's Graph endpoint with plain `fetch` (./graph-api.ts) for sends, and a webhook
 * (./webhook.ts) on WHATSAPP_WEBHOOK_HOST:WHATSAPP_WEBHOOK_PORT for what people send, checked against the app secret.
 */
export async function startWhatsAppBot(config: Config, options: WhatsAppBotOptions = {}): Promise<RunningBot> {
  const { WHATSAPP_ACCESS_TOKEN, WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_APP_SECRET, WHATSAPP_VERIFY_TOKEN } = requireConfig(config, [
    "WHATSAPP_ACCESS_TOKEN",
    "WHATSAPP_PHONE_NUMBER_ID",
    "WHATSAPP_APP_SECRET",
    "WHATSAPP_VERIFY_TOKEN",
  ]);
  const log = options.log ?? createLog("whatsapp");
  const api = createGraphApi({
    apiRoot: config.WHATSAPP_API_ROOT ?? "https://graph.facebook.com",
    version: WHATSAPP_GRAPH_VERSION,
    phoneNumberId: WHATSAPP_PHONE_NUMBER_ID,
    accessToken: WHATSAPP_ACCESS_TOKEN,
    log,
    ...(options.retry ? { retry: options.retry } : {}),
  });
  // One recipient's messages in line at its pace, and each then takes a slot of the number's throughput.
  const pacer = createWhatsAppPacer(options.pace, options.throughput);
  const paced = <T>(chat: string, send: () => Promise<T>) => pacer.run(chat, send);
  const windows = createConversationWindows();
  const template = parseTemplateSetting(config.WHATSAPP_TEMPLATE);
  const adapter = createWhatsAppAdapter({ api, paced, windows, log, ...(template ? { template } : {}) });
  let inbound: ReturnType<typeof createWhatsAppInbound> | undefined;

  return startBridgeBot({
    config,
    log,
    allowedUsers: config.WHATSAPP_ALLOWED_USERS,
    otherOpens: "reply",
    adapter,
    toPlatformText: (text) => cutToFit(text, WHATSAPP_TEXT_MAX, toWhatsAppText),
    listen(bridge) {
      adapter.onSent((note) => bridge.sent({ ...note, messageRef: Promise.resolve(note.messageRef) }));
      // A prompt refused by a later status webhook: its delivery is withdrawn and the target fails at the gateway.
      adapter.onRefused((note) => bridge.refused(note));
      // The person wrote: prompts that waited for it (the target `waiting` at the gateway) go out now.
      adapter.onReopened((questionId) => bridge.redeliver(questionId));
      inbound = createWhatsAppInbound({
        api,
        paced,
        bridge,
        adapter,
        phoneNumberId: WHATSAPP_PHONE_NUMBER_ID,
        allowedUsers: config.WHATSAPP_ALLOWED_USERS,
        log,
        ...(config.LOG_LEVEL === "debug" || config.LOG_LEVEL === "trace" ? { debug: log } : {}),
        ...(options.markRead !== undefined ? { markRead: options.markRead } : {}),
      });
    },
    async start(deliver) {
      const handler = createWebhookHandler({ appSecret: WHATSAPP_APP_SECRET, verifyToken: WHATSAPP_VERIFY_TOKEN, log, onEvent: (body) => inbound?.onEvent(body) });
      // Listening first: Meta retries an event it could not deliver, but for a while only.
      const webhook = await listenWebhook(handler, config.WHATSAPP_WEBHOOK_PORT, config.WHATSAPP_WEBHOOK_HOST ?? config.GATEWAY_HOST);
      try {
        await deliver();
      } catch (error) {
        await webhook.close();
        throw error;
      }
      log(`webhook on port ${webhook.port}`);
      return {
        async stop() {
          await webhook.close();
          // The messages being handled finish first (at most a few seconds), so none is half answered.
          await Promise.race([inbound?.idle(), new Promise((resolve) => setTimeout(resolve, 3_000).unref?.())]);
        },
      };
    },
  });
}

/** The entry the CLI loads by platform name (`ask-user-bridge bot whatsapp`). */
export { startWhatsAppBot as startBot };
