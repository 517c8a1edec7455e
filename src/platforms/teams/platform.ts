/** Microsoft Teams, as the shared core knows it (the bot, on the Microsoft 365 Agents SDK, is bots/teams). */
import type { EnvKit } from "../kit/env.ts";
import { definePlatform } from "../kit/descriptor.ts";
import { teamsSurface } from "./surface.ts";
import { toTeamsText } from "./escaping.ts";

/**
 * Teams shows at most 6 actions on a card (more are cut off on mobile): 4 options, Other… and Skip fit exactly, since
 * a question has at most 4 options.
 */
export const TEAMS_CARD_ACTIONS_MAX = 6;
/** A button title Teams shows whole on desktop and mobile; longer ones are cut with "…". */
export const TEAMS_ACTION_TITLE_MAX = 40;
/** The `ask_user` field of an Action.Submit's data: the encoded press. Teams takes far more; this keeps cards small. */
export const TEAMS_SUBMIT_DATA_MAX = 256;

/** A target's chat: a conversation id `19:…@thread.<kind>`, or an Entra object id (a GUID) for a personal chat. */
export const TEAMS_CHAT_PATTERN = /19:[A-Za-z0-9_.\-]{1,200}@thread\.[a-z0-9]{1,16}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/u;

/**
 * The hosts a conversation's serviceUrl may name, unless TEAMS_SERVICE_URL_HOSTS says others: the Bot Connector's
 * for Teams in each cloud (public, GCC, GCC High, DoD, China: the hosts Microsoft's Teams SDK allows) and the Bot
 * Framework's own services. `*.` matches any subdomain; any other entry only that host.
 */
export const TEAMS_SERVICE_URL_HOSTS_DEFAULT: readonly string[] = [
  "smba.trafficmanager.net",
  "smba.onyx.prod.teams.trafficmanager.net",
  "smba.infra.gcc.teams.microsoft.com",
  "smba.infra.gov.teams.microsoft.us",
  "smba.infra.dod.teams.microsoft.us",
  "frontend.botapi.msg.infra.teams.microsoftonline.cn",
  "*.botframework.com",
  "*.botframework.us",
];
/** One entry of TEAMS_SERVICE_URL_HOSTS: a host name or IPv4 address, lower case, optionally `*.` before it. */
export const TEAMS_SERVICE_URL_HOST_PATTERN = /^(\*\.)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/u;

export const teams = definePlatform({
  ...teamsSurface,
  exampleChat: "19:abc123@thread.tacv2",
  // A channel or group chat (`19:…@thread.tacv2`, `19:…@thread.v2`, a meeting's `19:meeting_…@thread.v2`), or a
  // person's Entra object id (their personal chat).
  // Its conversation ids hold a colon; its user ids are the default's.
  targetIds: { chat: TEAMS_CHAT_PATTERN.source, user: "[A-Za-z0-9_@.\\-]{1,128}" },
  chats: {
    group: "channel",
    groupAnswer: "thread",
    replyHint: "In this channel, a typed answer counts only in this message's thread. Or @mention me with it.",
  },
  buttons: { max: TEAMS_CARD_ACTIONS_MAX, labelMax: TEAMS_ACTION_TITLE_MAX, perRow: 1, rows: TEAMS_CARD_ACTIONS_MAX },
  callbackData: { field: "Action.Submit data.ask_user", max: TEAMS_SUBMIT_DATA_MAX, unit: "characters" },
  env: ({ z, port, optionalText, url, idList }: EnvKit) => ({
    /** The bot's Microsoft App ID (the Azure Bot resource's app registration, a GUID). */
    TEAMS_APP_ID: optionalText,
    /** Its client secret; unset with TEAMS_TOKEN_SIDECAR_URL, where the sidecar holds the credential. */
    TEAMS_APP_PASSWORD: optionalText,
    /** The app registration's tenant (single-tenant bots, the only kind Azure still creates). */
    TEAMS_TENANT_ID: optionalText,
    TEAMS_PORT: port.default(3978),
    /** The interface the messaging endpoint binds; unset: GATEWAY_HOST. */
    TEAMS_HOST: optionalText,
    TEAMS_ALLOWED_USERS: idList,
    /** The Entra authority whose keys sign inbound tokens and whose token endpoint the secret is sent to; unset: https://login.microsoftonline.com. */
    TEAMS_AUTHORITY_URL: url,
    /** The Microsoft Entra SDK sidecar (loopback) that gets the bot's tokens instead of the secret; the tests' fake is one. */
    TEAMS_TOKEN_SIDECAR_URL: url,
    /**
     * Comma-separated hosts a conversation's serviceUrl may name (`*.example.com` for its subdomains): the bot takes no
     * activity from another and sends nothing, least of all its token, to one. Unset: TEAMS_SERVICE_URL_HOSTS_DEFAULT.
     */
    TEAMS_SERVICE_URL_HOSTS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const hosts = (v ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
        const bad = hosts.find((host) => !TEAMS_SERVICE_URL_HOST_PATTERN.test(host));
        if (bad) ctx.addIssue({ code: "custom", message: `"${bad}" is not a host; use a comma-separated list of hosts (smba.trafficmanager.net, *.botframework.com)` });
        return hosts.length > 0 ? hosts : undefined;
      }),
  }),
  secrets: ["TEAMS_APP_PASSWORD"],
  tokenVar: "TEAMS_APP_ID",
  portVars: ["TEAMS_PORT"],
  // The Bot Framework messaging endpoint (TEAMS_MESSAGES_PATH in bots/teams/server.ts).
  inbound: { protocol: "http", hostVar: "TEAMS_HOST", portVar: "TEAMS_PORT", paths: ["/api/messages"] },
  botHelp: "TEAMS_APP_ID + TEAMS_APP_PASSWORD + TEAMS_TENANT_ID (serves POST /api/messages on TEAMS_PORT)",
  apiName: "the Bot Connector",
  escapeText: toTeamsText,
  credentialShapes: {
    // Entra client secrets: 3 characters, a digit, `Q~`, then 34 more (the format since 2021).
    known: [/(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{34}(?![A-Za-z0-9_~.-])/u],
    // No split shape: it has no distinctive prefix to start a joined run (src/parse/split-credential.ts).
    split: [],
  },
  setup: {
    vars: [
      { name: "TEAMS_APP_ID", prompt: "Microsoft App ID of the bot (Azure Bot resource → Configuration, a GUID)" },
      { name: "TEAMS_APP_PASSWORD", prompt: "Its client secret (the app registration → Certificates & secrets)", secret: true },
      { name: "TEAMS_TENANT_ID", prompt: "The app registration's tenant id (Overview → Directory (tenant) ID)" },
    ],
    allowVar: "TEAMS_ALLOWED_USERS",
    pairing: {
      hello: "a message",
      notCaptured: "Teams delivers messages only to the bot's public messaging endpoint, which init does not run",
      user: {
        label: "your Microsoft Entra object id (a GUID)",
        where: "Microsoft Entra admin center → Users → your name → Object ID (or Teams → your profile picture → … the same id in the admin center). The bot can write to you once the app is installed for you, or after you message it once",
        pattern: "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
        normalize: (text) => text.trim().toLowerCase(),
      },
    },
  },
  sdks: ["@microsoft/agents-hosting", "@microsoft/agents-activity"],
});
