/** WhatsApp (the Cloud API), as the shared core knows it (the bot, plain `fetch` on the Graph API, is bots/whatsapp). */
import type { EnvKit } from "../kit/env.ts";
import { definePlatform } from "../kit/descriptor.ts";
import { whatsappSurface } from "./surface.ts";
import { toWhatsAppText } from "./escaping.ts";

/** An interactive list row's id: at most 200 characters. */
export const WHATSAPP_ROW_ID_MAX = 200;
/** A list row's title: at most 24 characters. */
export const WHATSAPP_ROW_TITLE_MAX = 24;
/** A list row's description: at most 72 characters. */
export const WHATSAPP_ROW_DESCRIPTION_MAX = 72;
/** A list message holds at most 10 rows in all. */
export const WHATSAPP_LIST_ROWS_MAX = 10;
/** The button that opens the list: at most 20 characters. */
export const WHATSAPP_LIST_BUTTON_MAX = 20;
/** An interactive message's body: at most 1024 characters. */
export const WHATSAPP_INTERACTIVE_BODY_MAX = 1024;
/** A text message's body: at most 4096 characters. */
export const WHATSAPP_TEXT_MAX = 4096;
/** The Graph API version the bot calls. */
export const WHATSAPP_GRAPH_VERSION = "v21.0";

export const whatsapp = definePlatform({
  ...whatsappSurface,
  exampleChat: "15551234567",
  // The Cloud API reaches one person at a time: every chat is a direct message (the group rules never apply).
  chats: { group: "group", groupAnswer: "reply", replyHint: "In this group, a typed answer counts only as a reply to this message." },
  // Three reply buttons are fewer than options plus Other… and Skip, so the native control is a list message: one
  // full-width row each, at most 10 rows, each title at most 24 characters (the rest goes into its description).
  buttons: { max: WHATSAPP_LIST_ROWS_MAX, labelMax: WHATSAPP_ROW_TITLE_MAX, perRow: 1, rows: WHATSAPP_LIST_ROWS_MAX },
  callbackData: { field: "row id", max: WHATSAPP_ROW_ID_MAX, unit: "characters" },
  env: ({ port, optionalText, url, idList }: EnvKit) => ({
    WHATSAPP_ACCESS_TOKEN: optionalText,
    WHATSAPP_PHONE_NUMBER_ID: optionalText,
    WHATSAPP_APP_SECRET: optionalText,
    WHATSAPP_VERIFY_TOKEN: optionalText,
    /** The interface the webhook listener binds; unset: GATEWAY_HOST. */
    WHATSAPP_WEBHOOK_HOST: optionalText,
    WHATSAPP_WEBHOOK_PORT: port.default(8790),
    WHATSAPP_ALLOWED_USERS: idList,
    WHATSAPP_API_ROOT: url,
    /** An approved message template that opens a conversation outside the 24-hour window: `name` or `name:language`. */
    WHATSAPP_TEMPLATE: optionalText,
  }),
  secrets: ["WHATSAPP_ACCESS_TOKEN", "WHATSAPP_APP_SECRET", "WHATSAPP_VERIFY_TOKEN"],
  tokenVar: "WHATSAPP_ACCESS_TOKEN",
  portVars: ["WHATSAPP_WEBHOOK_PORT"],
  // The Cloud API's webhook: its verification GET and its signed POSTs (bots/whatsapp/webhook.ts).
  inbound: { protocol: "http", hostVar: "WHATSAPP_WEBHOOK_HOST", portVar: "WHATSAPP_WEBHOOK_PORT", paths: ["/webhook"] },
  botHelp: "WHATSAPP_ACCESS_TOKEN + WHATSAPP_PHONE_NUMBER_ID + WHATSAPP_APP_SECRET + WHATSAPP_VERIFY_TOKEN (webhook on WHATSAPP_WEBHOOK_PORT; optional WHATSAPP_TEMPLATE)",
  apiName: "the WhatsApp Cloud API",
  escapeText: toWhatsAppText,
  credentialShapes: {
    // Meta access tokens (system-user and user tokens) start with EAA and run to 100+ characters.
    known: [/(?<![A-Za-z0-9])EAA[A-Za-z0-9]{40,}/u],
    split: [{ before: "[A-Za-z0-9]", body: "EAA[A-Za-z0-9]{40,512}", accept: "random" }],
  },
  // Plain `fetch`: no SDK (Meta's Node SDK is archived).
  setup: {
    vars: [
      { name: "WHATSAPP_ACCESS_TOKEN", prompt: "WhatsApp access token (Meta for Developers → your app → WhatsApp → API Setup; a System User token for good)", secret: true },
      { name: "WHATSAPP_PHONE_NUMBER_ID", prompt: "WhatsApp phone number id (API Setup → From: Phone number ID)" },
      { name: "WHATSAPP_APP_SECRET", prompt: "App secret (App settings → Basic → App secret)", secret: true },
      { name: "WHATSAPP_VERIFY_TOKEN", prompt: "Webhook verify token (any random text; the same in the app's Webhooks settings)", secret: true },
    ],
    allowVar: "WHATSAPP_ALLOWED_USERS",
    pairing: {
      hello: "a message",
      notCaptured: "WhatsApp delivers messages only to a public webhook, which init does not run",
      user: {
        label: "your WhatsApp number, with its country code, digits only (e.g. 4915112345678)",
        where: "the number of the phone that answers. Send the business number a message first: WhatsApp lets the bot write only within 24 hours of your last message, unless WHATSAPP_TEMPLATE is set",
        pattern: "[0-9]{6,15}",
        normalize: (text) => text.replace(/[\s+()-]/gu, ""),
      },
    },
  },
  sdks: [],
});
