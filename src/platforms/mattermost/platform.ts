/** Mattermost, as the shared core knows it (the bot, on @mattermost/client, is bots/mattermost). */
import type { EnvKit } from "../kit/env.ts";
import { definePlatform, field } from "../kit/descriptor.ts";
import { mattermostSurface } from "./surface.ts";
import { toMattermostText } from "./escaping.ts";

/** A button's label: Mattermost sets no limit, but a long one wraps badly; the renderer cuts at this. */
export const MATTERMOST_BUTTON_TEXT_MAX = 80;
/** The action `context` (JSON the server keeps and posts back): the encoded callback in it stays this short. */
export const MATTERMOST_CONTEXT_DATA_MAX = 200;
/** A post's message: Mattermost's default MaxPostSize is 16383 characters; older databases hold 4000. */
export const MATTERMOST_MESSAGE_MAX = 4000;

export const mattermost = definePlatform({
  ...mattermostSurface,
  exampleChat: "4xp9fdt7pbgium38k5k6w95oma",
  chats: { group: "channel", groupAnswer: "thread", replyHint: "In this channel, a typed answer counts only in this message's thread." },
  // One message attachment with one action per option, then Other… and Skip; Mattermost wraps them itself.
  buttons: { max: 25, labelMax: MATTERMOST_BUTTON_TEXT_MAX, perRow: 25, rows: 1 },
  callbackData: { field: "context", max: MATTERMOST_CONTEXT_DATA_MAX, unit: "characters" },
  env: ({ port, optionalText, url, idList }: EnvKit) => ({
    /** The server's address: https://mattermost.example.com. */
    MATTERMOST_URL: url,
    /** A bot account's access token (System Console → Integrations → Bot Accounts). */
    MATTERMOST_BOT_TOKEN: optionalText,
    /** The public base URL Mattermost calls for button presses and dialog submissions; unset: http://<host>:<port>. */
    MATTERMOST_ACTIONS_URL: url,
    /** The interface the actions listener binds; unset: GATEWAY_HOST. */
    MATTERMOST_ACTIONS_HOST: optionalText,
    MATTERMOST_ACTIONS_PORT: port.default(8791),
    MATTERMOST_ALLOWED_USERS: idList,
  }),
  secrets: ["MATTERMOST_BOT_TOKEN"],
  tokenVar: "MATTERMOST_BOT_TOKEN",
  portVars: ["MATTERMOST_ACTIONS_PORT"],
  // Button presses and dialog submissions: MATTERMOST_ACTIONS_PATH and MATTERMOST_DIALOG_PATH (./payload.ts).
  inbound: { protocol: "http", hostVar: "MATTERMOST_ACTIONS_HOST", portVar: "MATTERMOST_ACTIONS_PORT", paths: ["/mattermost/actions", "/mattermost/dialog"] },
  botHelp: "MATTERMOST_URL + MATTERMOST_BOT_TOKEN (button presses on MATTERMOST_ACTIONS_PORT)",
  apiName: "the Mattermost API",
  escapeText: toMattermostText,
  credentialShapes: {
    // Mattermost access tokens are 26 random lowercase letters and digits, the same shape as every id it makes, so
    // no shape can tell one from a channel id: the bot's own token is kept out by value (secrets above).
    known: [],
    split: [],
  },
  // The bot account the token belongs to.
  credentialCheck: (env) =>
    typeof env.MATTERMOST_BOT_TOKEN === "string" && env.MATTERMOST_BOT_TOKEN && typeof env.MATTERMOST_URL === "string"
      ? {
          url: `${env.MATTERMOST_URL.replace(/\/+$/u, "")}/api/v4/users/me`,
          headers: { authorization: `Bearer ${env.MATTERMOST_BOT_TOKEN}` },
          read: (status, body) => (status === 200 && field(body, "username") ? { who: `@${field(body, "username")}` } : { why: field(body, "message") ?? `HTTP ${status}` }),
        }
      : undefined,
  setup: {
    vars: [
      { name: "MATTERMOST_URL", prompt: "Mattermost server address (https://mattermost.example.com)" },
      { name: "MATTERMOST_BOT_TOKEN", prompt: "Mattermost bot access token (System Console → Integrations → Bot Accounts → Create new token)", secret: true },
    ],
    allowVar: "MATTERMOST_ALLOWED_USERS",
    pairing: {
      hello: "a direct message",
      notCaptured: "init asks you for your ids instead of watching Mattermost for a message",
      user: {
        label: "your Mattermost user id (26 letters and digits)",
        where: "in Mattermost, click your avatar → Profile → ⋮ → Copy ID",
        pattern: "[a-z0-9]{26}",
      },
      chat: {
        label: "your Mattermost username, for a direct message (@name)",
        where: "shown under your name when you click your avatar",
        pattern: "@[a-z0-9._-]{1,64}",
        normalize: (text) => `@${text.trim().replace(/^@/u, "").toLowerCase()}`,
      },
    },
  },
  sdks: ["@mattermost/client", "@mattermost/types"],
});
