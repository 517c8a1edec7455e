import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebSocketClient, WebSocketMessage } from "@mattermost/client";
import { applyEffects, callbackToEvent, TEXTS, type Bridge, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeMattermostCallback } from "../../src/platforms/mattermost/callback-data.ts";
import { decodeMattermostDialogState, MATTERMOST_DIALOG_CALLBACK_ID, mattermostDialogAnswer, mattermostDialogSignedText } from "../../src/platforms/mattermost/modal.ts";
import { MATTERMOST_ACTIONS_PATH, MATTERMOST_DIALOG_PATH, MATTERMOST_QUESTION_PROP } from "../../src/platforms/mattermost/payload.ts";
import { toMattermostText } from "../../src/platforms/mattermost/escaping.ts";
import type { Log } from "../shared.ts";
import { readBodyOr413 } from "../kit/listener.ts";
import { encodeMattermostMessageRef, type MattermostAdapter, type MattermostConversations } from "./adapter.ts";
import { mattermostStatus, type MattermostClient } from "./client.ts";
import { mattermostDialogOps, mattermostMessageOps, mattermostPressOps } from "./ops.ts";
import { createMattermostPermissions } from "./permissions.ts";
import type { Signer } from "./signing.ts";

const NAME_TTL_MS = 60 * 60_000;
const FAILED_TTL_MS = 60_000;
/** A name is nice to have in summaries, never worth holding up an answer. */
const LOOKUP_MAX_MS = 2_000;
/** An action request or dialog submission is small; anything larger is refused unread. */
const BODY_MAX_BYTES = 64 * 1024;

interface MattermostUser {
  id: string;
  username: string;
  first_name?: string;
  last_name?: string;
  nickname?: string;
}

/** People by id, cached: their username (a DM's chat is `@username`) and their name for summaries. */
function createMattermostPeople(client: MattermostClient, log: Log) {
  const known = new Map<string, { user: MattermostUser | undefined; untilMs: number }>();

  async function lookup(id: string): Promise<MattermostUser | undefined> {
    try {
      const user = (await client.getUser(id)) as MattermostUser;
      known.set(id, { user, untilMs: Date.now() + NAME_TTL_MS });
      return user;
    } catch (error) {
      log(`could not look up the user ${id}`, error);
      known.set(id, { user: undefined, untilMs: Date.now() + FAILED_TTL_MS });
      return undefined;
    }
  }

  async function userOf(id: string): Promise<MattermostUser | undefined> {
    const cached = known.get(id);
    if (cached && cached.untilMs > Date.now()) return cached.user;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), LOOKUP_MAX_MS)));
    timer?.unref();
    const user = await Promise.race([lookup(id), late]);
    clearTimeout(timer);
    return user;
  }

  return {
    userOf,
    async bridgeUser(id: string, fallback?: string): Promise<BridgeUser> {
      const user = await userOf(id);
      const full = [user?.first_name, user?.last_name].filter(Boolean).join(" ");
      const name = user?.nickname || full || user?.username || fallback;
      return { id, ...(name ? { name } : {}) };
    },
  };
}

/** The body as JSON: undefined when it was over the cap (answered 413 already); not JSON fails with status 400. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const body = await readBodyOr413(req, res, BODY_MAX_BYTES, (r) => sendJson(r, 413, {}));
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw Object.assign(new Error("not JSON"), { status: 400 });
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const str = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined);

export interface MattermostInbound {
  /** The HTTP handler for MATTERMOST_ACTIONS_PATH and MATTERMOST_DIALOG_PATH. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Takes the WebSocket's events (typed messages). */
  attach(socket: WebSocketClient): void;
}

/**
 * Translates Mattermost in and out. Button presses and dialog submissions arrive as HTTP POSTs from the server (the
 * action's integration URL): each press's context must carry the bot's signature over its question, option, chat and
 * channel, and its post must be the bot's prompt for that question; a dialog's state is signed for the person who
 * opened it. Anything else is refused and logged. Typed messages arrive over the WebSocket (`posted`).
 */
export function createMattermostInbound(
  client: MattermostClient,
  botUserId: string,
  bridge: Pick<Bridge, "handle" | "sent">,
  parts: { conversations: MattermostConversations; adapter: MattermostAdapter; signer: Signer; baseUrl(): string },
  log: Log,
): MattermostInbound {
  const { conversations, adapter, signer } = parts;
  const people = createMattermostPeople(client, log);
  const permissions = createMattermostPermissions(log);
  const notValid = () => ({ ephemeral_text: toMattermostText(TEXTS.notValid) });

  /** The post is the bot's prompt for this question in this channel (known from this process, or looked up). */
  async function postChecksOut(postId: string, channel: string, questionId: string): Promise<boolean> {
    if (adapter.sentPosts.get(postId) === questionId) return true;
    try {
      const post = (await client.getPost(postId)) as { user_id?: string; channel_id?: string; props?: Record<string, unknown> };
      const ok = post.user_id === botUserId && post.channel_id === channel && post.props?.[MATTERMOST_QUESTION_PROP] === questionId;
      if (ok) adapter.sentPosts.set(postId, questionId);
      return ok;
    } catch (error) {
      if (mattermostStatus(error) !== 404 && mattermostStatus(error) !== 403) log(`could not look up the pressed post ${postId}`, error);
      return false;
    }
  }

  async function onAction(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const user = str(body.user_id);
    const channel = str(body.channel_id);
    const postId = str(body.post_id);
    const context = (body.context ?? {}) as Record<string, unknown>;
    const data = str(context.d);
    const chat = str(context.c);
    if (!user || !channel || !postId) {
      log("refused an action request without its user, channel or post");
      return notValid();
    }
    const decoded = data ? decodeMattermostCallback(data) : null;
    if (!decoded || !chat || !signer.verify(signer.pressText(data!, chat, channel), context.s)) {
      log(`refused a press by ${user} in ${channel}: its context is not one the bot signed`);
      return notValid();
    }
    if (!(await postChecksOut(postId, channel, decoded.questionId))) {
      log(`refused a press by ${user}: post ${postId} is not the prompt of ${decoded.questionId} in ${channel}`);
      return notValid();
    }
    // Other… skips the look-up: its dialog must open within the trigger id's few seconds.
    const who = decoded.action.kind === "other" ? { id: user, ...(str(body.user_name) ? { name: str(body.user_name)! } : {}) } : await people.bridgeUser(user, str(body.user_name));
    const response = await bridge.handle(callbackToEvent(decoded, { user: who, chat }));
    if (!response) return {};
    const triggerId = str(body.trigger_id);
    const { ops, said } = mattermostPressOps(client, signer, parts.baseUrl(), log, { channel, user, chat, ...(triggerId ? { triggerId } : {}) });
    await applyEffects(response, ops);
    return said.length ? { ephemeral_text: said.join("\n\n") } : {};
  }

  async function onDialog(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (body.cancelled === true) return {};
    const user = str(body.user_id);
    const channel = str(body.channel_id);
    const state = decodeMattermostDialogState(body.state);
    if (body.callback_id !== MATTERMOST_DIALOG_CALLBACK_ID || !user || !state) {
      log("refused a dialog submission: not the bot's dialog");
      return {};
    }
    const { signature, ...context } = state;
    if (!signer.verify(mattermostDialogSignedText(context), signature) || context.user !== user || (channel && channel !== context.channel)) {
      log(`refused a dialog submission by ${user}: its state is not one the bot signed for them`);
      return {};
    }
    const who = await people.bridgeUser(user);
    const other = { questionId: context.questionId, action: { kind: "other" as const } };
    const response = await bridge.handle(callbackToEvent(other, { user: who, chat: context.chat, text: mattermostDialogAnswer(body.submission) }));
    if (response) await applyEffects(response, mattermostDialogOps(client, log, permissions, { channel: context.channel, user }));
    return {};
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "POST" || (path !== MATTERMOST_ACTIONS_PATH && path !== MATTERMOST_DIALOG_PATH)) {
      res.writeHead(404).end();
      return;
    }
    readJson(req, res)
      .then(async (body) => {
        if (res.headersSent) return;
        if (typeof body !== "object" || body === null) throw Object.assign(new Error("not an object"), { status: 400 });
        const record = body as Record<string, unknown>;
        sendJson(res, 200, path === MATTERMOST_ACTIONS_PATH ? await onAction(record) : await onDialog(record));
      })
      .catch((error: { status?: number }) => {
        if (!error.status) log(`a ${path === MATTERMOST_ACTIONS_PATH ? "button press" : "dialog submission"} failed`, error);
        if (!res.headersSent) sendJson(res, error.status ?? 500, {});
      });
  }

  async function onPosted(message: WebSocketMessage): Promise<void> {
    const data = message.data as { post?: string; channel_type?: string };
    if (typeof data.post !== "string") return;
    const post = JSON.parse(data.post) as { id?: string; user_id?: string; channel_id?: string; root_id?: string; message?: string; type?: string; props?: Record<string, unknown> };
    if (!post.id || !post.user_id || !post.channel_id || typeof post.message !== "string") return;
    // The bot's own posts, system messages (joins, header changes…), webhooks and other bots are not answers.
    if (post.user_id === botUserId || post.type || post.props?.from_webhook === "true" || post.props?.from_bot === "true") return;
    const direct = data.channel_type === "D";
    let chat = conversations.knownChatOf(post.channel_id) ?? post.channel_id;
    // A DM this process sent nothing to since it started: the chat its prompts name, else the person's `@username`.
    if (direct && chat === post.channel_id) {
      const learned = await conversations.learnChatOf(post.channel_id).catch((error: unknown) => (log(`could not read the DM ${post.channel_id}`, error), undefined));
      const known = learned ? undefined : await people.userOf(post.user_id);
      chat = learned ?? (known?.username ? `@${known.username}` : post.user_id);
    }
    const user = await people.bridgeUser(post.user_id);
    const response = await bridge.handle({
      kind: "text",
      text: post.message,
      user,
      chat,
      direct,
      messageRef: post.id,
      ...(post.root_id ? { replyToMessageRef: encodeMattermostMessageRef(post.channel_id, post.root_id) } : {}),
    });
    if (response) {
      const typed = { id: post.id, channel: post.channel_id, user: post.user_id, direct, chat, ...(post.root_id ? { rootId: post.root_id } : {}) };
      await applyEffects(response, mattermostMessageOps(client, botUserId, bridge, log, permissions, typed));
    }
  }

  return {
    handle,
    attach(socket) {
      socket.addMessageListener((message) => {
        if (message.event !== "posted") return;
        onPosted(message).catch((error) => log("a message failed", error));
      });
    },
  };
}
