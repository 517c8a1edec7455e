/**
 * The Matrix harness: the real bot (bots/matrix, matrix-js-sdk's client and the bot's sync loop) against the fake
 * homeserver, connected to a real gateway in this process. The scenario suites and matrix.test.ts drive it.
 */
import { startMatrixBot } from "../../../bots/matrix/index.ts";
import { loadConfig, type Config } from "../../../src/runtime/config.ts";
import { encodeMatrixAnswerId } from "../../../src/platforms/matrix/callback-data.ts";
import { toMatrixText } from "../../../src/platforms/matrix/escaping.ts";
import { startFakeMatrix, POLL_START, type FakeMatrix, type FakeMatrixEvent } from "./fake-api.ts";
import { TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import type { BotHarness, Person, PromptCopy } from "../../scenarios/harness.ts";

export interface MatrixHarness extends BotHarness {
  fake: FakeMatrix;
  config: Config;
  dataDir: string;
  /** The room a target chat is: the room itself, or the DM the bot opened with that person. */
  roomOf(chat: string): string;
  /** The bot's reply to a person's event (a vote's toast, the Other… request). */
  replyToEvent(roomId: string, eventId: string): FakeMatrixEvent | undefined;
}

const refOf = (roomId: string, eventId: string) => `${roomId}|${eventId}`;
const parseRef = (ref: string) => {
  const bar = ref.lastIndexOf("|");
  return { roomId: ref.slice(0, bar), eventId: ref.slice(bar + 1) };
};

/** A bot message that is no prompt, no edit, no poll end: a confirmation, a follow-up, a toast, a reminder. */
const isBotNotice = (e: FakeMatrixEvent) => {
  const content = e.redactedContent ?? e.content;
  return e.type === "m.room.message" && content?.msgtype === "m.notice" && content["m.relates_to"]?.rel_type !== "m.replace";
};
const isPrompt = (e: FakeMatrixEvent) =>
  !e.content?.["m.relates_to"] && (e.type === POLL_START || (e.type === "m.room.message" && e.content?.msgtype === "m.text"));

export async function createMatrixHarness(options: { people?: Partial<Record<"person" | "colleague" | "stranger", Person>> } = {}): Promise<MatrixHarness> {
  const fake = await startFakeMatrix();
  const gateway = await startHarnessGateway("aub-mx-");
  const { dataDir } = gateway;
  const people = {
    person: { id: "@ada:fake.test", name: "Ada" },
    colleague: { id: "@grace:fake.test", name: "Grace" },
    stranger: { id: "@mallory:fake.test", name: "Mallory" },
    ...options.people,
  };
  const everyone = [people.person, people.colleague, people.stranger];
  const [chat, otherChat] = ["!group1:fake.test", "!group2:fake.test"];
  fake.addRoom(chat, everyone);
  fake.addRoom(otherChat, everyone);
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: dataDir,
    MATRIX_HOMESERVER_URL: fake.baseUrl,
    MATRIX_ACCESS_TOKEN: fake.token,
    MATRIX_ALLOWED_USERS: `${people.person.id},${people.colleague.id}`,
  });
  const lifecycle = await startPlatformLifecycle(gateway, () => startMatrixBot(config, { log: () => {}, syncTimeoutMs: 5_000 }), [fake]);

  const roomOf = (target: string) => (target.startsWith("@") ? fake.dmRoomOf(target) ?? target : target);
  const eventOf = (ref: string) => {
    const { eventId } = parseRef(ref);
    const event = fake.event(eventId);
    if (!event) throw new Error(`no event ${ref}`);
    return event;
  };
  const answersOf = (event: FakeMatrixEvent) => (fake.shownContent(event)[POLL_START]?.answers ?? []) as Array<{ id: string; "org.matrix.msc1767.text": string }>;
  const replyToEvent = (roomId: string, eventId: string) => fake.botEvents(roomId).find((e) => isBotNotice(e) && fake.relatesTo(e)?.["m.in_reply_to"]?.event_id === eventId);

  /** Votes, then waits for what the bot says in reply to the vote. */
  async function vote(copy: PromptCopy, answerId: string, who: Person): Promise<string | undefined> {
    const { roomId, eventId } = parseRef(copy.ref);
    const cast = fake.vote(roomId, who, eventId, [answerId]);
    const told = await waitUntil(() => replyToEvent(roomId, cast.event_id), "the bot's answer to the vote").catch(() => undefined);
    return told?.content.body as string | undefined;
  }

  const harness: MatrixHarness = {
    ...lifecycle,
    fake,
    config,
    dataDir,
    roomOf,
    replyToEvent,
    surface: "matrix",
    chat,
    otherChat,
    ...people,
    copy(chatId, ref) {
      const event = eventOf(ref);
      // A redacted event (a deleted reminder) is read as it was: what it said.
      const shown = event.redactedContent ?? fake.shownContent(event);
      const ended = fake.pollEnded(event.event_id);
      return { chat: chatId, ref, text: String(shown.body ?? ""), buttons: event.type === POLL_START && !ended ? answersOf(event).map((a) => a["org.matrix.msc1767.text"]) : [] };
    },
    press(copy, index, who) {
      const answer = answersOf(eventOf(copy.ref))[index];
      if (!answer) throw new Error(`the poll has no answer ${index}`);
      return vote(copy, answer.id, who);
    },
    pressForged(copy, forged, who) {
      const id = forged === "garbage" ? "a1|zz|?|9" : encodeMatrixAnswerId({ questionId: forged.questionId, action: { kind: "choice", optionIndex: forged.optionIndex } });
      return vote(copy, id, who);
    },
    async answerOther(copy, who, text) {
      await (await harness.openOther(copy, who))(text);
    },
    async openOther(copy, who) {
      const { roomId, eventId } = parseRef(copy.ref);
      const other = answersOf(eventOf(copy.ref)).find((a) => a["org.matrix.msc1767.text"] === "Other…")!;
      const cast = fake.vote(roomId, who, eventId, [other.id]);
      const asked = await waitUntil(() => replyToEvent(roomId, cast.event_id), "the request for own words");
      if (!String(asked.content.body).includes("Reply with your own answer.")) throw new Error(`unexpected request: ${asked.content.body}`);
      return async (words) => void fake.type(roomId, who, words, { replyTo: asked.event_id });
    },
    async type(chatId, who, text, options = {}) {
      const roomId = roomOf(chatId);
      const sent = fake.type(roomId, who, text, options.replyTo ? { replyTo: parseRef(options.replyTo.ref).eventId } : {});
      return {
        deleted: () => fake.event(sent.event_id)?.redactedContent !== undefined,
        reactions: () => fake.reactionsOn(sent.event_id),
        redeliver: async () => fake.redeliver(sent),
      };
    },
    holdNextPrompt(chatId) {
      const held = fake.holdNext("prompt");
      return {
        release: held.release,
        posted: async () => {
          await waitUntil(() => held.arrived(), "the held prompt send");
          const roomId = roomOf(chatId);
          const prompt = fake.botEvents(roomId).filter(isPrompt).at(-1)!;
          return harness.copy(chatId, refOf(roomId, prompt.event_id));
        },
      };
    },
    platformText: toMatrixText,
    repliesTo(copy) {
      const { roomId, eventId } = parseRef(copy.ref);
      return fake
        .botEvents(roomId)
        .filter((e) => isBotNotice(e) && fake.relatesTo(e)?.["m.in_reply_to"]?.event_id === eventId)
        .map((e) => {
          const mentions = (e.redactedContent ?? e.content)["m.mentions"] as { user_ids?: string[]; room?: boolean } | undefined;
          const body = String((e.redactedContent ?? e.content).body ?? "");
          return {
            ...harness.copy(copy.chat, refOf(roomId, e.event_id)),
            deleted: e.redactedContent !== undefined,
            pings: mentions === undefined || (mentions.user_ids?.length ?? 0) > 0 || mentions.room === true || /(?<![\p{L}\p{N}_])@[\p{L}\p{N}_]/u.test(body),
          };
        });
    },
    latestReply(chatId) {
      const roomId = roomOf(chatId);
      const reply = fake.botEvents(roomId).filter(isBotNotice).at(-1)!;
      return harness.copy(chatId, refOf(roomId, reply.event_id));
    },
    refuseDeletingOwn(refuse) {
      fake.refuseRedactingOwn(refuse);
    },
    forbidDeleting(forbid) {
      // The real cause on Matrix: the bot's power level is below the room's `redact` level.
      for (const roomId of fake.roomIds()) fake.setPowerLevel(roomId, fake.botUserId, forbid ? 0 : 50);
    },
    botReplies: (chatId) =>
      fake
        .botEvents(roomOf(chatId))
        .filter(isBotNotice)
        .map((e) => String((e.redactedContent ?? e.content).body)),
    privateNotices: () => [],
    promptSends: (questionId) =>
      fake.calls.filter((c) => c.created && c.created.type === POLL_START && !c.body["m.relates_to"] && JSON.stringify(c.body).includes(`|${questionId}|`)).length,
    rateLimitNextSend(seconds) {
      fake.failNext("send", { status: 429, body: { errcode: "M_LIMIT_EXCEEDED", error: "Too Many Requests", retry_after_ms: seconds * 1000 } });
    },
  };
  return harness;
}
