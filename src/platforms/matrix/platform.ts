/** Matrix, as the shared core knows it (the bot, on matrix-js-sdk, is bots/matrix). */
import type { EnvKit } from "../kit/env.ts";
import { definePlatform, field } from "../kit/descriptor.ts";
import { matrixSurface } from "./surface.ts";
import { toMatrixText } from "./escaping.ts";

/**
 * MSC3381 polls: clients show at least 20 answers, and a question or an answer text of up to 340 characters
 * (longer ones are cut by clients, so the renderer cuts them first).
 */
export const MATRIX_POLL_ANSWERS_MAX = 20;
export const MATRIX_POLL_TEXT_MAX = 340;
/** A poll answer's `id` carries the callback (record id + action). The MSC sets no limit; we keep it short. */
export const MATRIX_ANSWER_ID_MAX = 128;
/** Event content may be 65,536 bytes in all; the text is kept well under that (body and formatted_body both). */
export const MATRIX_TEXT_MAX = 16_000;

/** A server name: a DNS name, IPv4 or [IPv6], with an optional port. */
const SERVER = String.raw`(?:[A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?`;
/** `!opaque:server` (room ids), `@localpart:server` (user ids; `+` is the target's user separator, so left out). */
const ROOM_ID = String.raw`![A-Za-z0-9._~=\-/]{1,255}:${SERVER}`;
const USER_ID = String.raw`@[a-z0-9._=\-/]{1,255}:${SERVER}`;
const USER_ID_RE = new RegExp(`^${USER_ID}$`, "u");

export const matrix = definePlatform({
  ...matrixSurface,
  exampleChat: "!AbCdEfGhIjKlMnOp:example.org",
  chats: {
    group: "room",
    groupAnswer: "reply",
    replyHint: "In this room, a typed answer counts only as a reply to this message or in its thread.",
  },
  // The one single-select question is a poll: one answer per option, then Other… and Skip.
  buttons: { max: MATRIX_POLL_ANSWERS_MAX, labelMax: MATRIX_POLL_TEXT_MAX, perRow: 1, rows: MATRIX_POLL_ANSWERS_MAX },
  callbackData: { field: "poll answer id", max: MATRIX_ANSWER_ID_MAX, unit: "characters" },
  env: ({ z, optionalText, url }: EnvKit) => ({
    /** The bot account's homeserver, e.g. https://matrix.example.org (the client-server API's base URL). */
    MATRIX_HOMESERVER_URL: url,
    MATRIX_ACCESS_TOKEN: optionalText,
    /** Comma-separated Matrix user ids (`@ada:example.org`). */
    MATRIX_ALLOWED_USERS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const ids = (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);
        const bad = ids.find((id) => !USER_ID_RE.test(id));
        if (bad) ctx.addIssue({ code: "custom", message: `"${bad}" is not a Matrix user id; use a comma-separated list such as @ada:example.org` });
        return ids;
      }),
  }),
  secrets: ["MATRIX_ACCESS_TOKEN"],
  tokenVar: "MATRIX_ACCESS_TOKEN",
  portVars: [],
  inbound: { none: "the bot long-polls its homeserver (/sync) for events, poll votes included" },
  botHelp: "MATRIX_HOMESERVER_URL + MATRIX_ACCESS_TOKEN (optional MATRIX_ALLOWED_USERS)",
  apiName: "the Matrix homeserver",
  escapeText: toMatrixText,
  credentialShapes: {
    known: [
      // Synapse access and refresh tokens: syt_/syr_, the base64 localpart, 20 random characters, a 6-character check.
      /(?<![A-Za-z0-9_])sy[tr]_[A-Za-z0-9]{1,255}_[A-Za-z0-9]{20}_[A-Za-z0-9]{6}/u,
      // Matrix Authentication Service tokens: mat_/mar_, 30 random characters, a 6-character check.
      /(?<![A-Za-z0-9_])ma[tr]_[A-Za-z0-9]{30}_[A-Za-z0-9]{6}/u,
    ],
    split: [
      { before: "[A-Za-z0-9_]", body: "sy[tr]_[A-Za-z0-9]{1,255}_[A-Za-z0-9]{20}_[A-Za-z0-9]{6}", accept: "always" },
      { before: "[A-Za-z0-9_]", body: "ma[tr]_[A-Za-z0-9]{30}_[A-Za-z0-9]{6}", accept: "always" },
    ],
  },
  targetIds: { chat: `(?:${ROOM_ID}|${USER_ID})`, user: USER_ID },
  // whoami: the user the access token belongs to.
  credentialCheck: (env) =>
    typeof env.MATRIX_ACCESS_TOKEN === "string" && env.MATRIX_ACCESS_TOKEN && typeof env.MATRIX_HOMESERVER_URL === "string"
      ? {
          url: `${env.MATRIX_HOMESERVER_URL.replace(/\/+$/u, "")}/_matrix/client/v3/account/whoami`,
          headers: { authorization: `Bearer ${env.MATRIX_ACCESS_TOKEN}` },
          read: (status, body) => (status === 200 && field(body, "user_id") ? { who: field(body, "user_id")! } : { why: field(body, "error") ?? `HTTP ${status}` }),
        }
      : undefined,
  setup: {
    vars: [
      { name: "MATRIX_HOMESERVER_URL", prompt: "The bot account's homeserver (https://matrix.example.org)" },
      { name: "MATRIX_ACCESS_TOKEN", prompt: "The bot account's access token (Element, signed in as the bot: Settings → Help & About → Access Token)", secret: true },
    ],
    allowVar: "MATRIX_ALLOWED_USERS",
    pairing: {
      hello: "a direct message",
      notCaptured: "init asks you for your Matrix id instead of syncing the bot's rooms",
      user: {
        label: "your Matrix user id (@name:server)",
        where: "in Element, click your avatar (top left): the id under your name. The question comes as a direct message the bot opens",
        pattern: USER_ID,
        normalize: (text) => text.trim(),
      },
    },
  },
  sdks: ["matrix-js-sdk", "@matrix-org/", "matrix-events-sdk", "matrix-widget-api"],
});
