/** Slack, as the shared core knows it (the bot, on Bolt, is bots/slack). */
import type { EnvKit } from "../kit/env.ts";
import { definePlatform, field } from "../kit/descriptor.ts";
import { slackSurface } from "./surface.ts";
import { toSlackText } from "./escaping.ts";

/** Slack action_id: at most 255 characters. */
export const SLACK_ACTION_ID_MAX = 255;
export const SLACK_BUTTON_TEXT_MAX = 75;

export const slack = definePlatform({
  ...slackSurface,
  exampleChat: "C0123ABCD",
  chats: { group: "channel", groupAnswer: "thread", replyHint: "In this channel, a typed answer counts only in this message's thread." },
  // One actions block: up to 25 buttons, which Slack wraps itself.
  buttons: { max: 25, labelMax: SLACK_BUTTON_TEXT_MAX, perRow: 25, rows: 1 },
  callbackData: { field: "action_id", max: SLACK_ACTION_ID_MAX, unit: "characters" },
  env: ({ port, optionalText, url, idList }: EnvKit) => ({
    SLACK_BOT_TOKEN: optionalText,
    SLACK_SIGNING_SECRET: optionalText,
    SLACK_APP_TOKEN: optionalText,
    SLACK_PORT: port.default(3000),
    /** The interface Slack's HTTP mode binds; unset: GATEWAY_HOST. */
    SLACK_HOST: optionalText,
    SLACK_API_URL: url,
    SLACK_ALLOWED_USERS: idList,
  }),
  secrets: ["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET"],
  tokenVar: "SLACK_BOT_TOKEN",
  portVars: ["SLACK_PORT"],
  // HTTP mode (with SLACK_SIGNING_SECRET): Bolt's events path; Socket Mode listens on nothing.
  inbound: { protocol: "http", hostVar: "SLACK_HOST", portVar: "SLACK_PORT", paths: ["/slack/events"] },
  botHelp: "SLACK_BOT_TOKEN + SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP on SLACK_PORT)",
  apiName: "the Slack API",
  escapeText: toSlackText,
  credentialShapes: {
    known: [
      // Tokens: xoxa-, xoxb-, xoxe-, xoxp-, xoxr-, xoxs- followed by a token body; app-level tokens (xapp-1-…).
      /(?<![A-Za-z0-9])xox[abeprs]-[A-Za-z0-9-]{10}/u,
      /(?<![A-Za-z0-9])xapp-[0-9]-[A-Za-z0-9-]{10}/u,
      // Incoming-webhook URLs: whoever holds one may post as the app.
      /hooks\.slack\.com\/(?:services|workflows|triggers)\/T[A-Z0-9]{6,}\/[A-Za-z0-9]{6,}\/[A-Za-z0-9]{6}/u,
    ],
    split: [
      { before: "[A-Za-z0-9]", body: "xox[abeprs]-[A-Za-z0-9-]{10,256}", accept: "digit" },
      { before: "[A-Za-z0-9]", body: "xapp-[0-9]-[A-Za-z0-9-]{10,256}", accept: "digit" },
      { before: "[A-Za-z0-9]", body: "hooks\\.slack\\.com\\/(?:services|workflows|triggers)\\/T[A-Z0-9]{6,32}\\/[A-Za-z0-9]{6,32}\\/[A-Za-z0-9]{6}", accept: "always" },
    ],
  },
  // auth.test: the bot user and its workspace, if the token is one.
  credentialCheck: (env) =>
    typeof env.SLACK_BOT_TOKEN === "string" && env.SLACK_BOT_TOKEN
      ? {
          url: `${String(env.SLACK_API_URL ?? "https://slack.com/api").replace(/\/+$/u, "")}/auth.test`,
          method: "POST",
          headers: { authorization: `Bearer ${env.SLACK_BOT_TOKEN}`, "content-type": "application/x-www-form-urlencoded" },
          body: "",
          read: (status, body) =>
            status === 200 && (body as { ok?: unknown } | null)?.ok === true ? { who: `${field(body, "user") ?? "?"} in ${field(body, "team") ?? "?"}` } : { why: field(body, "error") ?? `HTTP ${status}` },
        }
      : undefined,
  setup: {
    vars: [
      { name: "SLACK_BOT_TOKEN", prompt: "Slack bot token, xoxb-… (api.slack.com/apps → your app → OAuth & Permissions)", secret: true },
      { name: "SLACK_APP_TOKEN", prompt: "Slack app-level token, xapp-… for Socket Mode (Basic Information → App-Level Tokens; Enter to use HTTP mode instead)", secret: true, optional: true },
      { name: "SLACK_SIGNING_SECRET", prompt: "Slack signing secret for HTTP mode (Basic Information → App Credentials; Enter to skip with Socket Mode)", secret: true, optional: true },
    ],
    allowVar: "SLACK_ALLOWED_USERS",
    pairing: {
      hello: "a direct message",
      notCaptured: "Slack delivers messages only through Socket Mode or to your HTTP endpoint, which init does not run",
      user: {
        label: "your Slack member id (U…)",
        where: "in Slack, click your profile picture → Profile → ⋮ (More) → Copy member ID. The question comes as a direct message from the app",
        pattern: "[UW][A-Z0-9]{6,20}",
      },
    },
  },
  sdks: ["@slack/bolt", "@slack/web-api", "@slack/socket-mode"],
});
