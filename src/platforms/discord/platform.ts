/** Discord, as the shared core knows it (the bot, on discord.js, is bots/discord). */
import type { EnvKit } from "../kit/env.ts";
import { definePlatform, field } from "../kit/descriptor.ts";
import { discordSurface } from "./surface.ts";
import { toDiscordContent } from "./escaping.ts";

/** Discord component custom_id: at most 100 characters. */
export const DISCORD_CUSTOM_ID_MAX = 100;
export const DISCORD_BUTTON_LABEL_MAX = 80;
export const DISCORD_BUTTONS_PER_ROW = 5;

export const discord = definePlatform({
  ...discordSurface,
  exampleChat: "987654321098765432",
  chats: { group: "channel", groupAnswer: "reply", replyHint: "In this channel, a typed answer counts only as a reply to this message." },
  // Action rows of buttons: 5 to a row, 5 rows to a message.
  buttons: { max: 25, labelMax: DISCORD_BUTTON_LABEL_MAX, perRow: DISCORD_BUTTONS_PER_ROW, rows: 5 },
  callbackData: { field: "custom_id", max: DISCORD_CUSTOM_ID_MAX, unit: "characters" },
  env: ({ optionalText, url, idList }: EnvKit) => ({
    DISCORD_BOT_TOKEN: optionalText,
    DISCORD_API_URL: url,
    DISCORD_ALLOWED_USERS: idList,
  }),
  secrets: ["DISCORD_BOT_TOKEN"],
  tokenVar: "DISCORD_BOT_TOKEN",
  portVars: [],
  inbound: { none: "Discord sends events over the gateway WebSocket the bot opens; button presses arrive there too" },
  botHelp: "DISCORD_BOT_TOKEN (optional DISCORD_API_URL, DISCORD_ALLOWED_USERS)",
  apiName: "the Discord API",
  escapeText: toDiscordContent,
  credentialShapes: {
    known: [
      // Bot tokens: the bot's id (17-20 digits) in base64, whose every 4 characters encode 3 ASCII digits, then a
      // 6-character timestamp and an HMAC of 27 or more.
      /(?<![A-Za-z0-9_-])(?:[MNO][DTjz][AEIMQUYcgk][w-z0-5]){5,6}[A-Za-z0-9_-]{0,3}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}/u,
      // Webhook URLs: whoever holds one may post as the app.
      /discord(?:app)?\.com\/api\/webhooks\/[0-9]{17,20}\/[A-Za-z0-9_-]{40}/u,
    ],
    split: [
      {
        before: "[A-Za-z0-9_-]",
        body: "(?:[MNO][DTjz][AEIMQUYcgk][w-z0-5]){5,6}[A-Za-z0-9_-]{0,3}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27}",
        accept: "always",
      },
    ],
  },
  // The bot user, as its token sees itself (discord.js adds /v10 to DISCORD_API_URL the same way).
  credentialCheck: (env) =>
    typeof env.DISCORD_BOT_TOKEN === "string" && env.DISCORD_BOT_TOKEN
      ? {
          url: `${String(env.DISCORD_API_URL ?? "https://discord.com/api").replace(/\/+$/u, "")}/v10/users/@me`,
          headers: { authorization: `Bot ${env.DISCORD_BOT_TOKEN}` },
          read: (status, body) => (status === 200 && field(body, "username") ? { who: field(body, "username")! } : { why: field(body, "message") ?? `HTTP ${status}` }),
        }
      : undefined,
  setup: {
    vars: [{ name: "DISCORD_BOT_TOKEN", prompt: "Discord bot token (Developer Portal → your application → Bot → Reset Token)", secret: true }],
    allowVar: "DISCORD_ALLOWED_USERS",
    pairing: {
      hello: "a direct message",
      notCaptured: "Discord delivers messages only over its gateway WebSocket, which init does not open",
      user: {
        label: "your Discord user id",
        where: "in Discord, User Settings → Advanced → turn on Developer Mode; then right-click your own name (or avatar) → Copy User ID. The question comes as a direct message, so share a server with the bot and allow DMs from its members",
        pattern: "[0-9]{17,20}",
      },
    },
  },
  sdks: ["discord.js", "@discordjs/"],
});
