import type { App, BlockAction, ViewSubmitAction, webApi } from "@slack/bolt";
import { applyEffects, callbackToEvent, TEXTS, type Bridge, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeSlackActionId } from "../../src/platforms/slack/callback-data.ts";
import { decodeSlackModalMetadata, SLACK_OTHER_MODAL_CALLBACK_ID, slackModalAnswer } from "../../src/platforms/slack/modal.ts";
import { SLACK_REVIEW_ACTION_ID } from "../../src/platforms/slack/payload.ts";
import { slackTextToPlain, toSlackText } from "../../src/platforms/slack/escaping.ts";
import type { Log } from "../shared.ts";
import { encodeSlackMessageRef, type SlackConversations } from "./adapter.ts";
import { slackMessageOps, slackPressOps, tellPrivately } from "./ops.ts";
const NAME_TTL_MS = 60 * 60_000;
const FAILED_TTL_MS = 60_000;
/** A name is nice to have in summaries, never worth holding up an answer. */
const LOOKUP_MAX_MS = 2_000;

/**
 * Display names for summaries ("answered in Slack by Ada"), from users.info (scope users:read), cached.
 * Without the scope, or when Slack is slow, the event's own username (or nothing) is used.
 */
function createSlackPeople(client: webApi.WebClient, log: Log) {
  const names = new Map<string, { name: string | undefined; untilMs: number }>();

  async function lookup(user: string): Promise<string | undefined> {
    try {
      const { user: found } = await client.users.info({ user });
      const name = found?.profile?.display_name || found?.real_name || found?.profile?.real_name || found?.name;
      names.set(user, { name: name || undefined, untilMs: Date.now() + NAME_TTL_MS });
      return name || undefined;
    } catch (error) {
      log(`could not look up the name of ${user}`, error);
      names.set(user, { name: undefined, untilMs: Date.now() + FAILED_TTL_MS });
      return undefined;
    }
  }

  return {
    async nameOf(user: string, fallback?: string): Promise<string | undefined> {
      const cached = names.get(user);
      if (cached && cached.untilMs > Date.now()) return cached.name ?? fallback;
      let resolveLate: (value: undefined) => void = () => {};
      const late = new Promise<undefined>((resolve) => (resolveLate = resolve));
      const timer = setTimeout(() => resolveLate(undefined), LOOKUP_MAX_MS);
      timer.unref();
      const name = await Promise.race([lookup(user), late]);
      clearTimeout(timer);
      return name ?? fallback;
    },
  };
}

const bridgeUser = (id: string, name: string | undefined): BridgeUser => ({ id, ...(name ? { name } : {}) });

/** A typed message from a person: no subtype (edits, joins, files…), no bot. */
interface PlainMessage {
  channel: string;
  user: string;
  text: string;
  ts: string;
  thread_ts?: string;
  channel_type?: string;
}

function plainMessage(event: Record<string, unknown>): PlainMessage | undefined {
  const { subtype, bot_id, channel, user, text, ts, thread_ts, channel_type } = event;
  if ((subtype !== undefined && subtype !== "thread_broadcast") || bot_id) return undefined;
  if (typeof channel !== "string" || typeof user !== "string" || typeof text !== "string" || typeof ts !== "string") return undefined;
  return { channel, user, text, ts, ...(typeof thread_ts === "string" ? { thread_ts } : {}), ...(typeof channel_type === "string" ? { channel_type } : {}) };
}

/**
 * Translates Slack in and out: button presses, the Other… modal and typed messages become bridge events; the
 * bridge's response is applied through Slack's operations (`./ops.ts`): an ephemeral notice, a modal, a thread reply,
 * a reaction or a deletion. Every action and view is acknowledged first, within Slack's 3 s.
 */
export function registerSlackInbound(app: App, bridge: Pick<Bridge, "handle" | "sent">, conversations: SlackConversations, log: Log): void {
  const web = app.client;
  const people = createSlackPeople(web, log);

  async function safely(what: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      log(`${what} failed`, error);
    }
  }

  async function acknowledge(ack: () => Promise<void>): Promise<void> {
    await ack().catch((error) => log("could not acknowledge", error));
  }

  app.action<BlockAction>(/.*/u, async ({ ack, body, action }) => {
    await acknowledge(ack);
    await safely("a button press", async () => {
      const channel = body.channel?.id ?? (body.container as { channel_id?: string }).channel_id;
      if (!channel) return log(`a press by ${body.user.id} came with no channel`);
      // Review… only opens the answer page: Slack reports the press, and there is nothing to do.
      if (action.action_id === SLACK_REVIEW_ACTION_ID) return;
      const decoded = decodeSlackActionId(action.action_id);
      if (!decoded) return tellPrivately(web, log, channel, body.user.id, toSlackText(TEXTS.notValid));
      const chat = conversations.chatOf(channel, body.user.id);
      const username = body.user.name ?? body.user.username;
      // Other… skips the lookup: its modal must open within the trigger id's 3 s.
      const name = decoded.action.kind === "other" ? username : await people.nameOf(body.user.id, username);
      const response = await bridge.handle(callbackToEvent(decoded, { user: bridgeUser(body.user.id, name), chat }));
      if (response) await applyEffects(response, slackPressOps(web, log, { channel, user: body.user.id, chat, triggerId: body.trigger_id }));
    });
  });

  app.view<ViewSubmitAction>(SLACK_OTHER_MODAL_CALLBACK_ID, async ({ ack, body, view }) => {
    await acknowledge(ack);
    await safely("a modal submission", async () => {
      const context = decodeSlackModalMetadata(view.private_metadata);
      if (!context) return log(`a modal from ${body.user.id} came with unreadable private_metadata`);
      const user = bridgeUser(body.user.id, await people.nameOf(body.user.id, body.user.name));
      const other = { questionId: context.questionId, action: { kind: "other" as const } };
      const response = await bridge.handle(callbackToEvent(other, { user, chat: context.chat, text: slackModalAnswer(view.state.values) }));
      if (response) await applyEffects(response, slackPressOps(web, log, { channel: context.channel, user: body.user.id, chat: context.chat }));
    });
  });

  app.event("message", async ({ event }) => {
    await safely("a message", async () => {
      const message = plainMessage(event as unknown as Record<string, unknown>);
      if (!message) return;
      const direct = message.channel_type === "im" || message.channel.startsWith("D");
      const chat = conversations.chatOf(message.channel, message.user, direct);
      const inThread = message.thread_ts && message.thread_ts !== message.ts ? message.thread_ts : undefined;
      const name = await people.nameOf(message.user);
      const response = await bridge.handle({
        kind: "text",
        text: slackTextToPlain(message.text),
        user: bridgeUser(message.user, name),
        chat,
        direct,
        messageRef: message.ts,
        ...(inThread ? { replyToMessageRef: encodeSlackMessageRef(message.channel, inThread) } : {}),
      });
      if (response) await applyEffects(response, slackMessageOps(web, bridge, log, { ...message, direct, chat }));
    });
  });
}
