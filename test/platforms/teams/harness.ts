import { startTeamsBot, type RunningTeamsBot } from "../../../bots/teams/index.ts";
import { loadConfig, type Config } from "../../../src/runtime/config.ts";
import { encodeTeamsSubmitData } from "../../../src/platforms/teams/callback-data.ts";
import { toTeamsText } from "../../../src/platforms/teams/escaping.ts";
import { TEAMS_ANSWER_INPUT_ID, TEAMS_SUBMIT_FIELD } from "../../../src/platforms/teams/payload.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import { gatewayQuestions, waitUntil } from "../../scenarios/tools.ts";
import type { BotHarness, Person, PromptCopy } from "../../scenarios/harness.ts";
import { startFakeTeams, type FakeTeams, type FakeTeamsMessage } from "./fake-api.ts";

export const TEAMS_TEST_APP = { appId: "6f0b7c1e-2d3a-4b5c-8d9e-0a1b2c3d4e5f", tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47" };

export const TEAMS_PEOPLE = {
  person: { id: "0a0a0a0a-0000-4000-8000-00000000ada1", name: "Ada" },
  colleague: { id: "0b0b0b0b-0000-4000-8000-0000000096ac", name: "Grace" },
  stranger: { id: "0c0c0c0c-0000-4000-8000-00000000ba11", name: "Mallory" },
};
/** A channel (threads), a group chat (quoted replies), and each person's personal chat. */
export const TEAMS_CHATS = { chat: "19:chan-one@thread.tacv2", otherChat: "19:chan-two@thread.tacv2" };
/** A group chat (no threads: quoted replies), for the Teams tests. */
export const TEAMS_GROUP_CHAT = "19:group-three@thread.v2";

/** The card's actions as buttons: options, Other… (a ShowCard), Skip. */
export function cardButtons(card: any): string[] {
  return (card?.actions ?? []).map((a: { title: string }) => a.title);
}
export function cardText(card: any): string {
  return (card?.body ?? []).filter((b: { type: string }) => b.type === "TextBlock").map((b: { text: string }) => (b.text === " " ? "" : b.text)).join("\n");
}

export interface TeamsHarness extends BotHarness {
  fake: FakeTeams;
  config: Config;
  bot(): RunningTeamsBot;
  message(copy: { ref: string }): FakeTeamsMessage;
  /** The Teams conversation of a target chat (a person's id: their personal chat). */
  conversationOf(chat: string): string;
  ask(questions: unknown[], target: { chat: string; users?: string[] }, extra?: Record<string, unknown>): Promise<string>;
  promptOf(id: string, chat?: string): Promise<PromptCopy>;
  /** Presses an action of a copy and waits for the bot's reply to it. */
  submitAndWait(copy: PromptCopy, data: Record<string, unknown>, who: Person): Promise<string | undefined>;
}

/** TEAMS_SERVICE_URL_HOSTS for the tests: the fake's host (any port). */
export const TEAMS_TEST_SERVICE_URL_HOSTS = "127.0.0.1";

export function teamsTestConfig(fake: FakeTeams, gatewayUrl: string, dataDir: string, extra: Record<string, string> = {}): Config {
  return loadConfig({
    GATEWAY_URL: gatewayUrl,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: dataDir,
    TEAMS_APP_ID: TEAMS_TEST_APP.appId,
    TEAMS_TENANT_ID: TEAMS_TEST_APP.tenantId,
    TEAMS_AUTHORITY_URL: fake.authorityUrl,
    TEAMS_TOKEN_SIDECAR_URL: fake.sidecarUrl,
    TEAMS_PORT: "0",
    TEAMS_HOST: "127.0.0.1",
    TEAMS_ALLOWED_USERS: `${TEAMS_PEOPLE.person.id},${TEAMS_PEOPLE.colleague.id}`,
    // The fake Bot Connector (and the delivery kit's proxy in front of it) is on the loopback.
    TEAMS_SERVICE_URL_HOSTS: TEAMS_TEST_SERVICE_URL_HOSTS,
    ...extra,
  });
}

/** Teams' pacing, relaxed: the suites post more than 7 messages a second to one channel. Bench 15 keeps the real one. */
export const TEAMS_TEST_PACE = { windows: [{ windowMs: 1_000, max: 1_000 }], perSecond: 1_000 };

export const teamsTestLog = () => (process.env.TEAMS_TEST_LOG ? (m: string, e?: unknown) => console.error(`[teams] ${m}`, e ?? "") : () => {});

export async function startTeamsFake(): Promise<FakeTeams> {
  const people = Object.values(TEAMS_PEOPLE);
  return startFakeTeams({
    ...TEAMS_TEST_APP,
    people,
    conversations: [
      { id: TEAMS_CHATS.chat, type: "channel" },
      { id: TEAMS_CHATS.otherChat, type: "channel" },
      { id: TEAMS_GROUP_CHAT, type: "groupChat" },
      ...people.map((p) => ({ id: `a:1personal-${p.id}`, type: "personal" as const, person: p.id })),
    ],
  });
}

/** Starts the bot and points the fake's Bot Framework at it. */
export async function startTeamsTestBot(fake: FakeTeams, config: Config): Promise<RunningTeamsBot> {
  const running = await startTeamsBot(config, { log: teamsTestLog(), pace: TEAMS_TEST_PACE });
  fake.useBot(`http://127.0.0.1:${running.port}/api/messages`);
  return running;
}

export async function createTeamsHarness(): Promise<TeamsHarness> {
  const fake = await startTeamsFake();
  const gateway = await startHarnessGateway("aub-teams-");
  const config = teamsTestConfig(fake, gateway.url, gateway.dataDir);
  const lifecycle = await startPlatformLifecycle(gateway, () => startTeamsTestBot(fake, config), [fake]);
  // The app is installed in the channel, the group chat and every person's personal chat: the bot has each reference.
  for (const conversation of fake.conversations.values()) {
    const status = await fake.install(conversation.id);
    if (status !== 200) throw new Error(`installing in ${conversation.id} got HTTP ${status}`);
  }

  const conversationOf = (chat: string) => (fake.conversations.has(chat) ? chat : fake.personalOf(chat));
  const messageOf = (copy: { ref: string }) => fake.message(copy.ref);
  const isBotReply = (m: FakeTeamsMessage) => m.from === "bot" && !m.card;

  /**
   * A press has no answer of its own in Teams: the bot's reply to it is its next reply in that conversation. One
   * person's presses take turns, so with tests running side by side the reply after a press is that press's.
   */
  const turns = new Map<string, Promise<unknown>>();
  function replyAfter(who: Person, card: FakeTeamsMessage, press: () => Promise<number>, expectReply = true): Promise<string | undefined> {
    // In a channel the reply is in the card's thread; a chat has no threads.
    const channel = fake.conversations.get(card.conversation)?.type === "channel";
    const replies = () => fake.botMessages(card.conversation).filter((m) => isBotReply(m) && (!channel || m.threadRoot === (card.threadRoot ?? card.id)));
    const turn = (turns.get(who.id) ?? Promise.resolve()).catch(() => {}).then(async () => {
      const before = replies().length;
      const status = await press();
      if (status !== 200) throw new Error(`the submit got HTTP ${status}`);
      if (!expectReply) return undefined;
      const reply = await waitUntil(() => replies()[before], `a bot reply in ${card.conversation}`, 5_000).catch(() => undefined);
      return reply?.text;
    });
    turns.set(who.id, turn);
    return turn;
  }

  const dataOf = (copy: PromptCopy, index: number): Record<string, unknown> => {
    // A copy already turned into its summary has no actions: a press on it comes from a client still showing the card as sent.
    const message = messageOf(copy);
    const action = message.card?.actions?.[index] ?? message.sentCard?.actions?.[index];
    if (!action) throw new Error(`the copy has no action ${index}`);
    return action.type === "Action.ShowCard" ? { ...action.card.actions[0].data } : { ...action.data };
  };

  const harness: TeamsHarness = {
    ...lifecycle,
    fake,
    config,
    surface: "teams",
    capabilities: { deletesMessages: false, marksMessages: false },
    ...TEAMS_CHATS,
    ...TEAMS_PEOPLE,
    message: messageOf,
    conversationOf,
    copy(chat, ref) {
      const m = fake.message(ref);
      return { chat, ref, text: cardText(m.card) || (m.text ?? ""), buttons: cardButtons(m.card) };
    },
    submitAndWait: (copy, data, who) => replyAfter(who, messageOf(copy), () => fake.submit(messageOf(copy), who.id, data)),
    press: (copy, index, who) => harness.submitAndWait(copy, dataOf(copy, index), who),
    pressForged(copy, forged, who) {
      const data = forged === "garbage" ? { [TEAMS_SUBMIT_FIELD]: "a1|zz|?|9" } : { [TEAMS_SUBMIT_FIELD]: encodeTeamsSubmitData({ questionId: forged.questionId, action: { kind: "choice", optionIndex: forged.optionIndex } }) };
      return harness.submitAndWait(copy, data, who);
    },
    async answerOther(copy, who, text) {
      await (await harness.openOther(copy, who))(text);
    },
    async openOther(copy, who) {
      const index = copy.buttons.indexOf("Other…");
      if (index < 0) throw new Error("the copy has no Other… button");
      // Action.ShowCard opens in the client: the bot hears of it only when the card's own Send is pressed.
      const data = dataOf(copy, index);
      return async (text) => {
        const status = await fake.submit(messageOf(copy), who.id, { ...data, [TEAMS_ANSWER_INPUT_ID]: text });
        if (status !== 200) throw new Error(`the Other… submit got HTTP ${status}`);
      };
    },
    async type(chat, who, text, options = {}) {
      const conversation = conversationOf(chat);
      const replied = options.replyTo ? messageOf(options.replyTo) : undefined;
      const typed = await fake.type(conversation, who.id, text, replied ? { threadRoot: replied.threadRoot ?? replied.id, replyToId: replied.id } : {});
      if (typed.status !== 200) throw new Error(`the message got HTTP ${typed.status}`);
      return {
        deleted: () => typed.message.deleted,
        // A Teams bot cannot react to a message: there is never a mark.
        reactions: () => [],
        redeliver: async () => {
          const status = await typed.redeliver();
          if (status !== 200) throw new Error(`the re-delivered message got HTTP ${status}`);
        },
      };
    },
    holdNextPrompt(chat) {
      const held = fake.holdNextPost();
      return {
        release: held.release,
        posted: async () => {
          await waitUntil(() => held.arrived(), "the held prompt send");
          const prompt = fake.botMessages(conversationOf(chat)).filter((m) => m.card).at(-1)!;
          return harness.copy(chat, prompt.id);
        },
      };
    },
    platformText: toTeamsText,
    repliesTo(copy) {
      const prompt = messageOf(copy);
      return fake
        .botMessages(prompt.conversation)
        .filter((m) => m.replyToId === prompt.id && !m.card)
        .map((m) => ({ chat: copy.chat, ref: m.id, text: m.text ?? "", buttons: [], deleted: m.deleted, pings: /<at>/i.test(m.text ?? "") }));
    },
    latestReply(chat) {
      const reply = fake.botMessages(conversationOf(chat)).filter(isBotReply).at(-1)!;
      return harness.copy(chat, reply.id);
    },
    refuseDeletingOwn(refuse) {
      fake.allowDeletingOwn(!refuse);
    },
    forbidDeleting() {
      // A Teams bot may never delete a person's message (declared: deletesMessages false).
    },
    botReplies: (chat) => fake.botMessages(conversationOf(chat)).filter(isBotReply).map((m) => m.text ?? ""),
    // Teams has no ephemeral messages: what another platform says privately is said in the conversation.
    privateNotices: () => [],
    promptSends: (questionId) => fake.calls.filter((c) => c.method === "POST" && c.status === 201 && JSON.stringify(c.body?.attachments ?? "").includes(`|${questionId}|`)).length,
    rateLimitNextSend(seconds) {
      fake.failNext("post", 429, { retryAfter: seconds });
    },
    ...gatewayQuestions("teams", lifecycle.gatewayUrl, (chat, ref) => harness.copy(chat, ref), TEAMS_CHATS.chat),
  };
  return harness;
}
