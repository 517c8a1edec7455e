/**
 * What the shared core knows about one chat platform: a descriptor, pure data and pure functions, with no SDK and
 * no renderer in it. Each platform's folder holds its descriptor (`platform.ts`) and its renderers (`payload.ts`,
 * `modal.ts`, `callback-data.ts`); src/platforms/index.ts lists the descriptors, and every list of platforms in
 * src/ derives from that registry.
 */
import type { ZodType } from "zod";
import type { EnvKit } from "./env.ts";

/** Native buttons on a prompt: how many fit, how long a label may be, how they are laid out. */
export interface ButtonCapability {
  /** Buttons one message may hold. */
  max: number;
  /** Characters a button label may have; undefined: the platform sets no limit the renderer must meet. */
  labelMax?: number;
  /** Buttons on one row (1: a full-width row each). */
  perRow: number;
  /** Rows one message may hold. */
  rows: number;
}

/** Where a button's data goes (callback_data, custom_id, action_id) and how much of it the platform takes. */
export interface CallbackDataLimit {
  /** The platform's name for the field, for errors: "callback_data". */
  field: string;
  max: number;
  /** What `max` counts: UTF-8 bytes or UTF-16 characters. */
  unit: "bytes" | "characters";
}

/** Which typed messages count as an answer: in a direct message any of the person's; in a group, only these. */
export interface ChatRules {
  /** What the platform calls a chat of many people. */
  group: "group" | "channel" | "room";
  /** In a group, a typed answer counts only as a reply to the prompt, or only in the prompt's thread. */
  groupAnswer: "reply" | "thread";
  /** The prompt's line that says so in a group (none in a direct message). */
  replyHint: string;
}

/**
 * How a target's chat and users are written in text form (`SURFACE:CHAT[:USER+USER]`) where the platform's ids hold
 * characters the default (`A-Z a-z 0-9 _ @ . -`) does not, such as a colon (Matrix: `!room:server`, `@ada:server`;
 * Teams: `19:…@thread.v2`).
 * Each is a regular expression source for one id, without anchors; a user id may not contain `+` (the separator).
 */
export interface TargetIdSyntax {
  chat: string;
  user: string;
}

/** A token shape searched again over text with its whitespace removed (src/parse/split-credential.ts). */
export interface SplitCredentialShape {
  /** The characters that may not come right before it (its left boundary). */
  before: string;
  /** The shape itself, without its left boundary. */
  body: string;
  /** Whether a match is random enough to be a key: it reads random, it holds a digit, or always. */
  accept: "random" | "digit" | "always";
}

/** The platform's token shapes: no answer may hold one (src/parse/credential.ts). */
export interface CredentialShapes {
  known: readonly RegExp[];
  split: readonly SplitCredentialShape[];
}

export interface PlatformDescriptor<
  N extends string = string,
  E extends Record<string, ZodType> = Record<string, ZodType>,
  S extends keyof E & string = keyof E & string,
  T extends keyof E & string = keyof E & string,
> {
  /** The surface name targets use: `telegram:123`. */
  surface: N;
  /** The platform's own name, for people: summaries say "answered in Telegram". */
  title: string;
  /** A chat id for examples in help and errors (`telegram:123456789`). */
  exampleChat: string;
  chats: ChatRules;
  /** Native buttons, or undefined: every prompt is numbered text. */
  buttons: ButtonCapability | undefined;
  callbackData: CallbackDataLimit;
  /** Its environment variables, as a zod fragment of the config schema (src/runtime/config.ts). */
  env(kit: EnvKit): E;
  /** Which of them are secrets: kept out of answers (the credential filter) and out of logs. */
  secrets: readonly S[];
  /** The variable whose presence makes `start` run this platform's bot. */
  tokenVar: T;
  /** Port variables its bot listens on, so a port-in-use error names the right one. */
  portVars: readonly (keyof E & string)[];
  /** What the platform sends its bot, and where: deploy/ routes it (test/project/deploy-routes.test.ts). */
  inbound: Inbound<keyof E & string>;
  /** The `bot` command's help line: what the bot needs. */
  botHelp: string;
  /** What its API is called in errors: "cannot reach the Bot API". */
  apiName: string;
  /** Plain text made safe for it: nothing may ping people, inject markup, or link. */
  escapeText(text: string): string;
  credentialShapes: CredentialShapes;
  /** Its ids' text form in targets, where they differ from the default (src/record/targets.ts). */
  targetIds?: TargetIdSyntax;
  /**
   * Every question to a target on this surface gets an answer link (`/a/<token>`, in the record's `links`), whether
   * or not question.request asked for links: for a surface that delivers the link itself (e-mail).
   */
  answerLinks?: boolean;
  /** The SDK packages its bot uses: src/ may import none of them (test/project/boundary.test.ts). */
  sdks: readonly string[];
  /**
   * How `doctor` checks the credentials against the platform's API, with one plain HTTP call (no SDK): the request
   * for this configuration (undefined when its variables are incomplete), and what the answer says (the bot's name,
   * or why not). Absent: doctor says it cannot check this platform's credentials.
   */
  credentialCheck?: (env: Readonly<Record<string, unknown>>) => CredentialCheckRequest | undefined;
  /** How `init` sets this platform up (src/cli/init.ts); absent: init does not offer it yet. */
  setup?: PlatformSetup<keyof E & string>;
}

/** One variable `init` asks for, in the order asked (the token first). */
export interface SetupVar<K extends string = string> {
  name: K;
  /** The question: "Bot token (from @BotFather)". */
  prompt: string;
  /** Asked without echo, and never printed back. */
  secret?: boolean;
  /** Enter leaves it unset. */
  optional?: boolean;
}

/** One id the person types, where init cannot learn it from the platform with plain HTTP. */
export interface TypedId {
  /** What it is: "your Discord user id". */
  label: string;
  /** Where they find it, precisely. */
  where: string;
  /** Its shape, a regular expression source without anchors. */
  pattern: string;
  /** The typed text as the id (a Mattermost username gets its `@`, a phone number loses its `+`). */
  normalize?: (text: string) => string;
}

/**
 * How `init` learns who the person is: their user id (for the allow-list) and the chat to ask them in (the default
 * target). Captured from the first message they send the bot, with plain HTTP (no SDK), where the platform allows it;
 * otherwise typed by them.
 */
export interface Pairing {
  /** What the person sends the bot: "/start". */
  hello: string;
  /**
   * One long-poll for that message, from `cursor` (undefined: from the start), waiting up to `waitSeconds`; undefined
   * when the variables are incomplete. Absent: it cannot be captured with plain HTTP (`notCaptured` says why).
   */
  capture?: (env: Readonly<Record<string, unknown>>, cursor: string | undefined, waitSeconds: number) => PairingRequest | undefined;
  /** Why the person types their id instead (Discord's messages come only over its gateway WebSocket). */
  notCaptured?: string;
  /** Their user id, typed (also what --<platform>-user takes). */
  user: TypedId;
  /** The chat to ask in, typed; absent: the user id is the chat (a direct message). */
  chat?: TypedId;
  /** With `chat`: a direct message's chat id is still the user id (Telegram's private chat), so the user id will do. */
  chatDefaultsToUser?: boolean;
}

/** One poll call and how to read its answer: the hello when it came, where the next poll starts, or why it failed. */
export interface PairingRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  read(status: number, body: unknown): { hello?: { chat: string; user: string; name?: string }; cursor?: string } | { why: string; fix?: string };
}

/** Checked against the platform's own variables: a misspelt name fails `tsc`. */
export interface PlatformSetup<K extends string = string> {
  vars: readonly SetupVar<K>[];
  /** The variable listing who may answer (`TELEGRAM_ALLOWED_USERS`). */
  allowVar: K;
  pairing: Pairing;
}

/** One call that proves a platform's credentials, and how to read its answer. */
export interface CredentialCheckRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** The answer read: `{ who }` (the bot as the platform names it) when the credentials work, else `{ why }`. */
  read(status: number, body: unknown): { who: string } | { why: string };
}

/**
 * A listener the platform itself connects to: an HTTP one (a reverse proxy routes each of its paths to its port) or an
 * SMTP one (a mail relay forwards to it; no HTTP proxy can). `{ none }`: the bot only dials out, and `none` says why.
 */
export type Inbound<K extends string = string> = { protocol: "http" | "smtp"; hostVar: K; portVar: K; paths: readonly string[] } | { none: string };

/** The field `path` of a JSON answer as text, if it is one. */
export function field(body: unknown, ...path: string[]): string | undefined {
  let value: unknown = body;
  for (const key of path) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

/** Types a descriptor, keeping its literal name, its variables and which of them are its secrets and its token. */
export function definePlatform<const N extends string, E extends Record<string, ZodType>, const S extends keyof E & string, const T extends keyof E & string>(
  descriptor: PlatformDescriptor<N, E, S, T>,
): PlatformDescriptor<N, E, S, T> {
  return descriptor;
}
