/**
 * The WhatsApp harness: the real bot (bots/whatsapp) against the fake Graph API, its webhook fed by the fake's signed
 * sender, connected to a real gateway in this process. WhatsApp's Cloud API reaches one person at a time and cannot
 * edit or delete: the harness declares that (`capabilities`), every chat is a person's own number, and a copy's
 * current state (`copy`) is the latest reply the bot made to the prompt to update it (`sentCopy` is the prompt as sent).
 */
import { startWhatsAppBot, type WhatsAppBotOptions } from "../../../bots/whatsapp/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { encodeWhatsAppRowId } from "../../../src/platforms/whatsapp/callback-data.ts";
import { toWhatsAppText } from "../../../src/platforms/whatsapp/escaping.ts";
import { freePort, TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import type { BotHarness, Person, PromptCopy } from "../../scenarios/harness.ts";
import { startFakeWhatsApp, type FakeBotMessage, type FakeWhatsApp, type PairPace } from "./fake-api.ts";

export const WA = {
  accessToken: "EAAfaketoken-not-real",
  phoneNumberId: "106540352242922",
  appSecret: "app-secret-not-real",
  verifyToken: "verify-token-not-real",
};

/** The bot's WhatsApp variables, against a Graph API at `apiRoot`, taking Meta's webhook on 127.0.0.1:`webhookPort`. */
export function whatsappBotEnv(apiRoot: string, webhookPort: number) {
  return {
    WHATSAPP_ACCESS_TOKEN: WA.accessToken,
    WHATSAPP_PHONE_NUMBER_ID: WA.phoneNumberId,
    WHATSAPP_APP_SECRET: WA.appSecret,
    WHATSAPP_VERIFY_TOKEN: WA.verifyToken,
    WHATSAPP_API_ROOT: apiRoot,
    WHATSAPP_WEBHOOK_HOST: "127.0.0.1",
    WHATSAPP_WEBHOOK_PORT: String(webhookPort),
  };
}

/** Fast backoff for tests; the real one starts at 1 s. */
export const TEST_RETRY = { tries: 6, firstMs: 50, maxMs: 400 };
/** No pacing in the scenarios: the fake enforces no pair rate there. */
const TEST_PACE = { perSecond: 1000, burst: 1000 };

export interface WhatsAppHarness extends BotHarness {
  fake: FakeWhatsApp;
  webhookUrl: string;
}

export interface WhatsAppHarnessOptions {
  env?: Record<string, string>;
  bot?: WhatsAppBotOptions;
  pairPace?: PairPace;
}

const REMINDER = /^⏰/u;

export async function createWhatsAppHarness(options: WhatsAppHarnessOptions = {}): Promise<WhatsAppHarness> {
  const fake = await startFakeWhatsApp({ ...WA, ...(options.pairPace ? { pairPace: options.pairPace } : {}) });
  const gateway = await startHarnessGateway("aub-wa-");
  const webhookPort = await freePort();
  const people = { person: { id: "15550000101", name: "Ada" }, colleague: { id: "15550000102", name: "Grace" }, stranger: { id: "15550000666", name: "Mallory" } };
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: gateway.dataDir,
    ...whatsappBotEnv(fake.apiRoot, webhookPort),
    WHATSAPP_ALLOWED_USERS: `${people.person.id},${people.colleague.id}`,
    ...options.env,
  });
  const webhookUrl = `http://127.0.0.1:${webhookPort}/webhook`;
  fake.setWebhook(webhookUrl);
  const lifecycle = await startPlatformLifecycle(gateway, () => startWhatsAppBot(config, { log: () => {}, retry: TEST_RETRY, pace: TEST_PACE, ...options.bot }), [fake]);

  const message = (chat: string, ref: string): FakeBotMessage => {
    const found = fake.message(ref);
    if (!found || found.to !== chat) throw new Error(`no message ${ref} to ${chat}`);
    return found;
  };
  const asCopy = (chat: string, m: FakeBotMessage): PromptCopy => ({ chat, ref: m.id, text: m.text, buttons: m.rows.map((r) => r.title) });
  /** The bot's replies that update a copy: what it would have edited the copy into. */
  const updatesOf = (chat: string, ref: string) => fake.botMessages(chat).filter((m) => m.replyTo === ref && !REMINDER.test(m.text));
  const own = (chat: string, who: Person) => {
    if (chat !== who.id) throw new Error(`WhatsApp has no group chats: only ${chat} writes in ${chat}, not ${who.id}`);
  };
  const nameOf = (who: Person) => who.name;

  /** Picks a row of the copy's current list; resolves to what the bot answered the picker (not the copy's update). */
  async function select(copy: PromptCopy, row: number | { id: string }, who: Person): Promise<string | undefined> {
    const now = updatesOf(copy.chat, copy.ref).at(-1);
    const list = now?.type === "interactive" ? now : message(copy.chat, copy.ref);
    const before = fake.botMessages(who.id).length;
    const sent = await fake.select(who.id, nameOf(who), list, row);
    const answer = await waitUntil(
      () => fake.botMessages(who.id).slice(before).find((m) => m.type === "text" && m.replyTo === sent.id),
      "the bot's answer to the selection",
      3_000,
    ).catch(() => undefined);
    return answer?.text;
  }

  const harness: WhatsAppHarness = {
    ...lifecycle,
    fake,
    webhookUrl,
    surface: "whatsapp",
    capabilities: { edits: false, groups: false, deletesMessages: false, deletesOwnMessages: false },
    chat: people.person.id,
    otherChat: people.colleague.id,
    ...people,
    copy(chat, ref) {
      // What the person sees of this copy now: the latest reply that updates it (its ref stays the prompt's).
      const latest = updatesOf(chat, ref).at(-1);
      return { ...asCopy(chat, latest ?? message(chat, ref)), ref };
    },
    sentCopy: (chat, ref) => asCopy(chat, message(chat, ref)),
    press: (copy, index, who) => select(copy, index, who),
    pressForged(copy, forged, who) {
      const id = forged === "garbage" ? "a1|zz|?|9" : encodeWhatsAppRowId({ questionId: forged.questionId, action: { kind: "choice", optionIndex: forged.optionIndex } });
      return select(copy, { id }, who);
    },
    async answerOther(copy, who, text) {
      await (await harness.openOther(copy, who))(text);
    },
    async openOther(copy, who) {
      const before = fake.botMessages(who.id).length;
      await select(copy, copy.buttons.indexOf("Other…"), who);
      const ask = await waitUntil(() => fake.botMessages(who.id).slice(before).find((m) => m.text.includes("Reply with your own answer.")), "the request for own words");
      return async (text) => void (await fake.type(who.id, nameOf(who), text, ask.id));
    },
    async type(chat, who, text, options = {}) {
      own(chat, who);
      const sent = await fake.type(who.id, nameOf(who), text, options.replyTo?.ref);
      return { deleted: () => false, reactions: () => sent.reactions, redeliver: () => fake.redeliver(sent) };
    },
    holdNextPrompt(chat) {
      const held = fake.holdNext((m) => m.to === chat && m.type === "interactive" && m.replyTo === undefined);
      return {
        release: held.release,
        posted: async () => {
          return asCopy(chat, await held.whenArrived);
        },
      };
    },
    platformText: toWhatsAppText,
    repliesTo(copy) {
      return fake
        .botMessages(copy.chat)
        .filter((m) => m.replyTo === copy.ref && REMINDER.test(m.text))
        .map((m) => ({ ...asCopy(copy.chat, m), deleted: false, pings: false }));
    },
    latestReply(chat) {
      const reply = fake.botMessages(chat).filter((m) => m.type === "text").at(-1)!;
      return asCopy(chat, reply);
    },
    refuseDeletingOwn() {}, // the Cloud API never deletes a sent message
    forbidDeleting() {}, // nor a person's
    botReplies: (chat) => fake.botMessages(chat).map((m) => m.text),
    privateNotices: () => [],
    promptSends: (questionId) =>
      fake.calls.filter((c) => c.status === 200 && c.body.type === "interactive" && !c.body.context && JSON.stringify(c.body.interactive).includes(`|${questionId}|`)).length,
    rateLimitNextSend() {
      fake.failNext((body) => body.type === "interactive" && !body.context, 131056, { message: "(Business Account, Consumer Account) pair rate limit hit" });
    },
  };
  return harness;
}
