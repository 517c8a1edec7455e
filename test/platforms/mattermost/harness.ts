import { decodeMattermostMessageRef } from "../../../bots/mattermost/adapter.ts";
import { startMattermostBot, type RunningMattermostBot } from "../../../bots/mattermost/index.ts";
import { loadConfig, type Config } from "../../../src/runtime/config.ts";
import { encodeMattermostCallback } from "../../../src/platforms/mattermost/callback-data.ts";
import { toMattermostText } from "../../../src/platforms/mattermost/escaping.ts";
import { MATTERMOST_QUESTION_PROP } from "../../../src/platforms/mattermost/payload.ts";
import { freePort, TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import { gatewayQuestions, waitUntil } from "../../scenarios/tools.ts";
import type { BotHarness, Person, PromptCopy } from "../../scenarios/harness.ts";
import { startFakeMattermost, type FakeMattermost, type FakeMattermostPost, type FakeMattermostUser, type RateLimit } from "./fake-api.ts";

/** 26 lowercase letters and digits, the shape of a Mattermost token; not a real one. */
export const MATTERMOST_TEST_TOKEN = "faketokenforthetests000000";

/** What a person sees of a post's message: Markdown's backslash escapes undone (the zero-width spaces stay). */
export const shown = (message: string) => message.replace(/\\(.)/gu, "$1");

export const MATTERMOST_PEOPLE = {
  person: { id: "adaid000000000000000000000", name: "Ada", username: "ada" },
  colleague: { id: "graceid0000000000000000000", name: "Grace", username: "grace" },
  stranger: { id: "malloryid00000000000000000", name: "Mallory", username: "mallory" },
};

export interface MattermostHarness extends BotHarness {
  fake: FakeMattermost;
  config: Config;
  bot(): RunningMattermostBot;
  post(copy: { ref: string }): FakeMattermostPost;
  /** The Mattermost channel of a target chat (a person's id or `@username` means the DM with them). */
  channelOf(chat: string): string;
  userOf(who: Person): FakeMattermostUser;
  ask(questions: unknown[], target: { chat: string; users?: string[] }, extra?: Record<string, unknown>): Promise<string>;
  promptOf(id: string, chat?: string): Promise<PromptCopy>;
}

export interface MattermostHarnessOptions {
  rateLimit?: RateLimit | null;
  /**
   * The bot holds the System Admin role: its notes are ephemeral and it deletes a credential. Default false: a bot
   * account's default role, whose notes go in the message's thread and who leaves a credential for its author to delete.
   */
  systemAdmin?: boolean;
  /** The bot's log (default: nothing, or stderr with MATTERMOST_TEST_LOG set). */
  log?: (message: string, error?: unknown) => void;
}

export async function createMattermostHarness(options: MattermostHarnessOptions = {}): Promise<MattermostHarness> {
  const people = MATTERMOST_PEOPLE;
  const chats = { chat: "chan1id0000000000000000000", otherChat: "chan2id0000000000000000000" };
  const mmUsers = Object.values(people).map((p) => ({ id: p.id, username: p.username, first_name: p.name }));
  const systemAdmin = options.systemAdmin === true;
  const fake = await startFakeMattermost({
    token: MATTERMOST_TEST_TOKEN,
    people: mmUsers,
    channels: Object.values(chats),
    closedChannels: ["closedchan0000000000000000"],
    systemAdmin,
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
  });
  const gateway = await startHarnessGateway("aub-mm-");
  // A fixed port: the prompts' actions keep calling it across a bot restart, as MATTERMOST_ACTIONS_URL would.
  const actionsPort = await freePort();
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: gateway.dataDir,
    MATTERMOST_URL: fake.url,
    MATTERMOST_BOT_TOKEN: MATTERMOST_TEST_TOKEN,
    MATTERMOST_ACTIONS_HOST: "127.0.0.1",
    MATTERMOST_ACTIONS_PORT: String(actionsPort),
    MATTERMOST_ALLOWED_USERS: `${people.person.id},${people.colleague.id}`,
  });
  const log = options.log ?? (process.env.MATTERMOST_TEST_LOG ? (m: string, e?: unknown) => console.error(`[mattermost] ${m}`, e ?? "") : () => {});
  const lifecycle = await startPlatformLifecycle(gateway, () => startMattermostBot(config, { log, reconnectMs: 100 }), [fake]);

  const userOf = (who: Person) => fake.user(who.id)!;
  const channelOf = (chat: string) => {
    if (chat.startsWith("@")) {
      const user = mmUsers.find((u) => `@${u.username}` === chat);
      if (!user) throw new Error(`no user ${chat}`);
      return fake.dmOf(user.id);
    }
    return fake.user(chat) ? fake.dmOf(chat) : chat;
  };
  const postOf = (copy: { ref: string }) => {
    const ref = decodeMattermostMessageRef(copy.ref);
    if (!ref) throw new Error(`bad message ref ${copy.ref}`);
    return fake.post(ref.postId);
  };
  const isPrompt = (p: FakeMattermostPost) => typeof p.props[MATTERMOST_QUESTION_PROP] === "string";
  const refOf = (p: FakeMattermostPost) => `${p.channel_id}:${p.id}`;

  const harness: MattermostHarness = {
    ...lifecycle,
    fake,
    config,
    surface: "mattermost",
    capabilities: { deletesMessages: systemAdmin },
    ...chats,
    person: { id: people.person.id, name: people.person.name },
    colleague: { id: people.colleague.id, name: people.colleague.name },
    stranger: { id: people.stranger.id, name: people.stranger.name },
    post: postOf,
    channelOf,
    userOf,
    copy(chat, ref) {
      const post = postOf({ ref });
      return { chat, ref, text: shown(post.message), buttons: fake.actionsOf(post).map((a: any) => a.name as string) };
    },
    async press(copy, index, who) {
      const pressed = await fake.press(postOf(copy).id, index, userOf(who));
      if (pressed.status !== 200) throw new Error(`the press got HTTP ${pressed.status}`);
      return pressed.ephemeral;
    },
    async pressForged(copy, forged, who) {
      const d = forged === "garbage" ? "a1|zz|?|9" : encodeMattermostCallback({ questionId: forged.questionId, action: { kind: "choice", optionIndex: forged.optionIndex } });
      const pressed = await fake.press(postOf(copy).id, 0, userOf(who), { context: { d, c: copy.chat, s: "bm90LXRoZS1ib3RzLXNpZ25hdHVyZQ" } });
      return pressed.ephemeral;
    },
    async answerOther(copy, who, text) {
      await (await harness.openOther(copy, who))(text);
    },
    async openOther(copy, who) {
      const index = copy.buttons.indexOf("Other…");
      if (index < 0) throw new Error("the copy has no Other… button");
      const { triggerId } = await fake.press(postOf(copy).id, index, userOf(who));
      const opened = await waitUntil(() => fake.dialogs.find((d) => d.trigger_id === triggerId), "the dialog opened with the press's trigger_id");
      return async (text) => {
        const status = await fake.submitDialog(opened, userOf(who), text);
        if (status !== 200) throw new Error(`the dialog submission got HTTP ${status}`);
      };
    },
    async type(chat, who, text, options = {}) {
      const replied = options.replyTo ? postOf(options.replyTo) : undefined;
      const rootId = replied ? replied.root_id || replied.id : undefined;
      const { post, redeliver } = fake.type(channelOf(chat), userOf(who), text, rootId);
      return { deleted: () => post.deleted === true, reactions: () => post.reactions, redeliver: async () => redeliver() };
    },
    holdNextPrompt(chat) {
      const held = fake.holdNext("POST /api/v4/posts");
      return {
        release: held.release,
        posted: async () => {
          await waitUntil(() => held.arrived(), "the held prompt send");
          const prompt = fake.botPosts(channelOf(chat)).filter(isPrompt).at(-1)!;
          return harness.copy(chat, refOf(prompt));
        },
      };
    },
    platformText: toMattermostText,
    repliesTo(copy) {
      const prompt = postOf(copy);
      return fake
        .botPosts(prompt.channel_id)
        .filter((p) => p.root_id === prompt.id)
        .map((p) => ({ chat: copy.chat, ref: refOf(p), text: shown(p.message), buttons: [], deleted: p.deleted === true, pings: /(?<![\p{L}\p{N}_])@[\p{L}\p{N}]/u.test(p.message) }));
    },
    latestReply(chat) {
      const reply = fake.botPosts(channelOf(chat)).filter((p) => !isPrompt(p)).at(-1)!;
      return harness.copy(chat, refOf(reply));
    },
    refuseDeletingOwn: (refuse) => fake.allowDeletingOwn(!refuse),
    forbidDeleting: (forbid) => fake.allowDeletingOthers(systemAdmin && !forbid),
    botReplies: (chat) => fake.botPosts(channelOf(chat)).filter((p) => !isPrompt(p)).map((p) => p.message),
    privateNotices: (who) => fake.ephemeralsTo(who.id).map((e) => e.message),
    promptSends: (questionId) =>
      fake.calls.filter((c) => c.method === "POST" && c.path === "/api/v4/posts" && !c.failed && c.body?.props?.[MATTERMOST_QUESTION_PROP] === questionId).length,
    rateLimitNextSend(seconds) {
      fake.failNext("POST", "/api/v4/posts", { status: 429, retryAfter: seconds });
    },
    ...gatewayQuestions("mattermost", lifecycle.gatewayUrl, (chat, ref) => harness.copy(chat, ref), chats.chat),
  };
  return harness;
}
