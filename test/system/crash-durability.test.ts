/**
 * Crash durability, with every part a real process: `ask-user-bridge gateway` and `ask-user-bridge bot telegram|
 * discord|slack` as children, the platforms faked in-process (test/system/system-harness.ts).
 *
 * 1,000 questions go out across the three platforms (40 Telegram private chats, 8 Discord channels, 8 Slack
 * channels). One simulated person per chat answers every long question there, by button (90%) or typed reply (10%),
 * the moment its prompt shows up; about one in seven questions is short (3-6 s, with ASK_TEST_MIN_TIMEOUT_SECONDS=1)
 * and nobody answers it. Meanwhile the gateway is killed with SIGKILL twice (once briefly, once for ~7 s, longer than
 * the bots' 5 s offline wait) and each bot once, and each is started again.
 *
 * Each press and typed reply is tracked to its acknowledgement: "Answer submitted." / "✅ Recorded: …" or "This
 * question was already answered." ends the question for the person; "Not submitted…", Discord's "interaction
 * failed" (no acknowledgement within 3 s), no acknowledgement in time, or a bot that died holding the press make the
 * person try again, as a human would. A press that a live bot never acknowledges is a silent drop, and fails the test.
 *
 * At the end: every long question is answered exactly once, with the person's choice, by that person; every short
 * one expired within 1 s of its expiresAt (or, if that moment fell while the gateway was down, within 1 s of the
 * gateway coming back, which is when it expires "at start-up"); every acknowledged answer is in its record (0 lost);
 * every fake saw at most one prompt per question and chat (0 duplicates); and every copy ends as a summary.
 *
 * Bots are killed when they have no prompt send in flight (their platform's creation is paused for that moment; new
 * questions for it keep coming while it is down). A SIGKILL between a platform accepting a prompt and the gateway
 * recording the delivery cannot be told apart from "never sent" by a restarted bot, so it could re-send; see the report
 * for that window. Gateway kills are not synchronised with anything.
 *
 * Every other platform (test/system/system-platforms.ts) gets one lean round trip of the same story: a prompt sent, its
 * bot killed, a question asked while it is down, the gateway killed, both started again; both prompts are sent once
 * and answered once, by the person. The in-memory platform is declared skipped: it has no bot process to kill.
 *
 * CRASH_DEBUG=1 prints progress every 5 s and writes /tmp/crash-debug.json, /tmp/crash-failures.json and the
 * processes' logs (/tmp/crash-log-*.txt).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEXTS } from "../../src/bridge/index.ts";
import { decodeDiscordCustomId } from "../../src/platforms/discord/callback-data.ts";
import { decodeSlackActionId } from "../../src/platforms/slack/callback-data.ts";
import { decodeTelegramCallbackData } from "../../src/platforms/telegram/callback-data.ts";
import { decodeSlackMessageRef } from "../../bots/slack/adapter.ts";
import { BOT_USER, type FakeDiscordMessage } from "../platforms/discord/discord-payloads.ts";
import type { FakeSlackMessage } from "../platforms/slack/fake-api.ts";
import type { FakeTelegramMessage } from "../platforms/telegram/fake-api.ts";
import { rpcOk, sleep } from "../helpers/gateway.ts";
import { startSystem, until, type BotName, type RunningSystem } from "./system-harness.ts";
import { answerPrompt, askPlatform, LEAN_LABELS, PLATFORM_FAKES, startPlatformSystem, type LeanPlatform } from "./system-platforms.ts";

// ------------------------------------------------------------------ the plan

const TOTAL = 1_000;
const LABELS = ["Alpha", "Bravo", "Charlie"];
const CHATS: Record<BotName, number> = { telegram: 40, discord: 8, slack: 8 };
const PLATFORMS: BotName[] = ["telegram", "discord", "slack"];
/** Questions are created at this pace: 1,000 in about 25 s. */
const CREATE_EVERY_MS = 25;
/** People read a prompt before they answer it: nobody acts on a prompt less than this long after it appeared. */
const REACTION_MS = 800;
/** A person who hears nothing back tries again after this long. */
const NO_ACK_RETRY_MS = 8_000;
/** A press still unacknowledged this long after it was made, by a bot that stayed alive, is a silent drop. */
const SILENT_DROP_MS = 45_000;

const tgChat = (i: number) => 8_001 + i;
const dcChannel = (i: number) => `71000000000000${String(i).padStart(4, "0")}`;
const dcPerson = (i: number) => `10000000000000${String(3_000 + i).padStart(4, "0")}`;
const slChannel = (i: number) => `C0CRASH${i}`;
const slPerson = (i: number) => `U0CRASH${i}`;

interface Planned {
  n: number;
  platform: BotName;
  chatIndex: number;
  chat: string;
  person: string;
  short: boolean;
  timeoutSeconds: number;
  choice: number;
  typed: boolean;
  id?: string;
  expiresAtMs?: number;
}

const plan: Planned[] = Array.from({ length: TOTAL }, (_, n) => {
  const platform = PLATFORMS[n % 3]!;
  const k = Math.floor(n / 3);
  const chatIndex = k % CHATS[platform];
  const short = n % 7 === 3;
  return {
    n,
    platform,
    chatIndex,
    chat: platform === "telegram" ? String(tgChat(chatIndex)) : platform === "discord" ? dcChannel(chatIndex) : slChannel(chatIndex),
    person: platform === "telegram" ? String(tgChat(chatIndex)) : platform === "discord" ? dcPerson(chatIndex) : slPerson(chatIndex),
    short,
    timeoutSeconds: short ? 3 + (n % 4) : 900,
    choice: k % 3,
    typed: !short && k % 10 === 4,
  };
});

// ------------------------------------------------------------------ acknowledgements

type Ack = "submitted" | "already" | "not-submitted" | "not-valid" | "failed-visible" | `unexpected: ${string}`;

function classify(text: string | undefined): Ack {
  if (text === TEXTS.submitted || /^✅ Recorded: /.test(text ?? "")) return "submitted";
  if (text === TEXTS.alreadyAnswered) return "already";
  if (text === TEXTS.notSubmitted) return "not-submitted";
  // Said for a press that reaches the bot before the gateway has recorded the prompt's delivery (see the report).
  if (text === TEXTS.notValid) return "not-valid";
  return `unexpected: ${text}`;
}

interface Attempt {
  q: Planned;
  how: "press" | "typed";
  at: number;
  ack(): Ack | undefined;
  /** The bot process that held it died (or none was up to take it): no acknowledgement will ever come. */
  dead(): boolean;
}

describe("crash durability: 1,000 questions, kill -9 of the gateway twice and each bot once", () => {
  let sys: RunningSystem;
  const lives: Record<BotName, Array<{ from: number; to?: number }>> = { telegram: [], discord: [], slack: [] };
  const downtimes: Array<{ killedAt: number; spawnAt?: number; upAt?: number }> = [];
  const kills: string[] = [];
  let gatewayUp = true;

  beforeAll(async () => {
    const people = (count: number, id: (i: number) => string) => Array.from({ length: count }, (_, i) => ({ id: id(i), name: `Person ${i}` }));
    sys = await startSystem({
      telegram: { allowed: Array.from({ length: CHATS.telegram }, (_, i) => String(tgChat(i))) },
      discord: { channels: Array.from({ length: CHATS.discord }, (_, i) => dcChannel(i)), people: people(CHATS.discord, dcPerson), allowed: people(CHATS.discord, dcPerson).map((p) => p.id) },
      slack: { channels: Array.from({ length: CHATS.slack }, (_, i) => slChannel(i)), people: people(CHATS.slack, slPerson), allowed: people(CHATS.slack, slPerson).map((p) => p.id) },
    });
    for (const name of PLATFORMS) lives[name].push({ from: Date.now() });
  }, 120_000);
  afterAll(async () => {
    await sys?.close();
  });

  /** Was a process of this bot up at `t`, and is it still? (false: whatever it held is gone) */
  const survivedSince = (name: BotName, t: number) => {
    const life = lives[name].find((l) => l.from <= t && (l.to === undefined || t < l.to));
    return life !== undefined && life.to === undefined;
  };

  it("every question is answered exactly once or expires on time; nothing is lost or sent twice", async () => {
    const started = Date.now();
    const url = () => sys.gateway().url;

    // ---------------------------------------------------------------- prompts as the people see them

    const prompts = new Map<string, { telegram?: FakeTelegramMessage; discord?: FakeDiscordMessage; slack?: FakeSlackMessage; seenAt: number }>();
    let seenTelegram = 0;
    let seenSlack = 0;
    function indexPrompts(): void {
      const tg = sys.telegram.messages();
      for (const m of tg.slice(seenTelegram)) {
        const data = m.sent_markup?.inline_keyboard?.[0]?.[0]?.callback_data;
        const id = data && decodeTelegramCallbackData(data)?.questionId;
        if (id) prompts.set(id, { seenAt: Date.now(), ...prompts.get(id), telegram: m });
      }
      seenTelegram = tg.length;
      const sl = sys.slack.messages();
      for (const m of sl.slice(seenSlack)) {
        const actionId = m.sentBlocks?.find((b) => b.type === "actions")?.elements?.[0]?.action_id;
        const id = actionId && decodeSlackActionId(actionId)?.questionId;
        if (id) prompts.set(id, { seenAt: Date.now(), ...prompts.get(id), slack: m });
      }
      seenSlack = sl.length;
      for (let i = 0; i < CHATS.discord; i++) {
        for (const m of sys.discord.messagesIn(dcChannel(i))) {
          if (m.author.id !== BOT_USER.id || m.sentComponents.length === 0) continue;
          const id = decodeDiscordCustomId(m.sentComponents[0]?.components?.[0]?.custom_id)?.questionId;
          if (id && !prompts.get(id)?.discord) prompts.set(id, { seenAt: Date.now(), ...prompts.get(id), discord: m });
        }
      }
    }
    const indexer = setInterval(indexPrompts, 100);

    // ---------------------------------------------------------------- the agent: creating questions

    const gates: Record<BotName, { open: boolean }> = { telegram: { open: true }, discord: { open: true }, slack: { open: true } };
    const queues: Record<BotName, Planned[][]> = { telegram: [], discord: [], slack: [] };
    for (const name of PLATFORMS) queues[name] = Array.from({ length: CHATS[name] }, () => []);
    let created = 0;
    let creationDone = false;
    let uncertainCreates = 0;

    async function whenGatewayUp(): Promise<void> {
      await until(() => gatewayUp, "the gateway to be up", 60_000, 20);
    }

    async function create(q: Planned): Promise<void> {
      const body = {
        questions: [{ id: "pick", header: `Q${q.n}`, question: `Crash question ${q.n}: which one?`, options: LABELS.map((label) => ({ label })) }],
        timeoutSeconds: q.timeoutSeconds,
        // A short question nobody answers ends final: with no late window its copy drops its buttons at expiry.
        ...(q.short ? { lateAnswerSeconds: 0 } : {}),
        runId: `crash-${q.n}`,
        targets: [{ surface: q.platform, chat: q.chat }],
      };
      for (let attempt = 0; attempt < 30; attempt++) {
        await whenGatewayUp();
        try {
          const { id, expiresAtMs } = await rpcOk(url(), "question.request", body);
          Object.assign(q, { id, expiresAtMs });
          return;
        } catch {
          // The gateway died around the request: it may or may not have stored it. Look it up by its runId.
          uncertainCreates++;
          await sleep(100);
          await whenGatewayUp();
          try {
            const [found] = (await rpcOk(url(), "question.list", { runId: body.runId })).questions;
            if (found) {
              Object.assign(q, { id: found.id, expiresAtMs: found.expiresAtMs });
              return;
            }
          } catch {
            // down again: try the whole thing again
          }
        }
      }
      throw new Error(`could not create question ${q.n}`);
    }

    // One creator per platform, so that pausing one platform's questions does not hold up the others.
    const t0 = Date.now();
    const creator = Promise.all(
      PLATFORMS.map(async (platform) => {
        const mine = plan.filter((q) => q.platform === platform);
        let next = 0;
        await Promise.all(
          Array.from({ length: 3 }, async () => {
            while (next < mine.length) {
              const q = mine[next++]!;
              const due = t0 + q.n * CREATE_EVERY_MS;
              if (due > Date.now()) await sleep(due - Date.now());
              await until(() => gates[platform].open, `the ${platform} gate`, 120_000, 20);
              await create(q);
              created++;
              queues[platform][q.chatIndex]!.push(q);
            }
          }),
        );
      }),
    ).then(() => void (creationDone = true));

    // ---------------------------------------------------------------- the people

    const attempts: Attempt[] = [];
    const problems: string[] = [];
    const stats = { noAckRetries: 0, deadRetries: 0, notSubmitted: 0, notValid: 0, failedVisible: 0, pressesWhileGatewayDown: 0 };

    function attemptTelegram(q: Planned, prompt: FakeTelegramMessage): Attempt {
      const person = { id: Number(q.person), first_name: `Person ${q.chatIndex}` };
      const at = Date.now();
      if (q.typed) {
        const sent = sys.telegram.type(Number(q.chat), person, String(q.choice + 1), prompt);
        return {
          q,
          how: "typed",
          at,
          ack: () => {
            const reply = sys.telegram.calls.find((c) => c.method === "sendMessage" && !c.failed && c.body.reply_parameters?.message_id === sent.message_id);
            return reply && classify(reply.body.text);
          },
          // A reply the dead process had taken is not fetched again (see the press below), and one fetched again that it
          // had recorded is taken once (DUPLICATE_REPLY): no second confirmation, so the person tries again.
          dead: () => !survivedSince("telegram", at),
        };
      }
      const callback = sys.telegram.pushCallback(prompt, prompt.sent_markup.inline_keyboard[q.choice][0].callback_data, person);
      return {
        q,
        how: "press",
        at,
        ack: () => {
          const answer = sys.telegram.callbackAnswer(callback);
          return answer && classify(answer.text);
        },
        // grammY's runner confirms an update as it fetches the next batch, while the first is still being handled: a
        // press the killed process had taken (and perhaps recorded) is not fetched again, and its spinner just ends,
        // as on Discord. The person presses again ("already answered" if it was recorded).
        dead: () => !survivedSince("telegram", at),
      };
    }

    function attemptDiscord(q: Planned, prompt: FakeDiscordMessage): Attempt {
      const user = sys.discord.user(q.person)!;
      const at = Date.now();
      if (q.typed) {
        const sent = sys.discord.type(q.chat, user, String(q.choice + 1), prompt);
        return {
          q,
          how: "typed",
          at,
          ack: () => {
            const reply = sys.discord.messagesIn(q.chat).find((m) => m.author.id === BOT_USER.id && m.message_reference?.message_id === sent.id);
            return reply && classify(reply.content);
          },
          dead: () => !survivedSince("discord", at),
        };
      }
      const interaction = sys.discord.press(prompt, prompt.sentComponents[0].components[q.choice].custom_id, user);
      return {
        q,
        how: "press",
        at,
        ack: () => {
          if (interaction.notices[0] !== undefined) return classify(interaction.notices[0]);
          // Not acknowledged within Discord's 3 s: the app shows "This interaction failed".
          if (!interaction.callback && Date.now() - interaction.createdAtMs > 3_500) return "failed-visible";
          return undefined;
        },
        dead: () => !survivedSince("discord", at),
      };
    }

    /** Slack's notices carry no question: each person answers one question at a time, and takes every notice since. */
    function attemptSlack(q: Planned, prompt: FakeSlackMessage, notices: () => string[], settledBefore: () => number): Attempt {
      const who = { id: q.person, name: `Person ${q.chatIndex}` };
      const at = Date.now();
      let connection: number | undefined;
      let undelivered = false;
      const payload = q.typed
        ? sys.slack.typePayload(q.chat, who, String(q.choice + 1), prompt.ts).payload
        : (() => {
            const actions = prompt.sentBlocks!.find((b) => b.type === "actions");
            return sys.slack.pressPayload(prompt, actions.elements[q.choice].action_id, who, actions.block_id).payload;
          })();
      sys.slack
        .deliverTracked(q.typed ? "events_api" : "interactive", payload, 15_000)
        .then((r) => void (connection = r.connection))
        .catch(() => void (undelivered = true));
      const index = settledBefore();
      return {
        q,
        how: q.typed ? "typed" : "press",
        at,
        ack: () => {
          const text = notices()[index];
          return text === undefined ? undefined : classify(text);
        },
        dead: () => undelivered || (connection !== undefined && !sys.slack.connectionOpen(connection) && notices()[index] === undefined),
      };
    }

    async function answer(q: Planned): Promise<void> {
      const prompt = await until(() => prompts.get(q.id!)?.[q.platform], `the prompt of question ${q.n} (${q.platform} ${q.chat})`, 120_000, 50);
      const readFor = prompts.get(q.id!)!.seenAt + REACTION_MS - Date.now();
      if (readFor > 0) await sleep(readFor);
      // Slack notices for this question: ephemerals to the person in this channel (presses; typed failures are in the
      // thread) and the bot's replies in the prompt's thread (typed replies).
      const ephemeralStart = sys.slack.ephemerals.length;
      const notices = () =>
        q.platform !== "slack"
          ? []
          : [
              ...sys.slack.ephemerals.slice(ephemeralStart).filter((e) => e.user === q.person && e.channel === q.chat),
              ...sys.slack.botMessages(q.chat).filter((m) => !m.prompt && m.thread_ts === (prompt as FakeSlackMessage).ts),
            ].map((x) => x.text);
      const mine: Attempt[] = [];
      const settledBefore = () => mine.filter((a) => !a.dead()).length;
      const begun = Date.now();
      for (;;) {
        if (!gatewayUp) stats.pressesWhileGatewayDown++;
        const attempt =
          q.platform === "telegram"
            ? attemptTelegram(q, prompt as FakeTelegramMessage)
            : q.platform === "discord"
              ? attemptDiscord(q, prompt as FakeDiscordMessage)
              : attemptSlack(q, prompt as FakeSlackMessage, notices, settledBefore);
        mine.push(attempt);
        attempts.push(attempt);
        const acked = () => mine.map((a) => a.ack()).filter((x): x is Ack => x !== undefined);
        const before = acked().length;
        const outcome = await until(
          () => {
            const now = acked();
            if (now.some((a) => a === "submitted" || a === "already")) return "done";
            if (now.length > before) return now.at(-1)!;
            if (attempt.dead()) return "dead";
            if (Date.now() - attempt.at > NO_ACK_RETRY_MS) return "no-ack";
            return undefined;
          },
          `an acknowledgement for question ${q.n}`,
          NO_ACK_RETRY_MS + 5_000,
          25,
        );
        if (outcome === "done") break;
        if (outcome === "not-submitted") stats.notSubmitted++;
        else if (outcome === "not-valid") stats.notValid++;
        else if (outcome === "failed-visible") stats.failedVisible++;
        else if (outcome === "dead") stats.deadRetries++;
        else if (outcome === "no-ack") stats.noAckRetries++;
        else problems.push(`question ${q.n} (${q.platform}): ${outcome}`);
        if (Date.now() - begun > 120_000) {
          problems.push(`question ${q.n} (${q.platform}): no answer went through in 120 s`);
          return;
        }
        // Like a person: try again in a moment; when the bot is down, once it is back.
        if (outcome === "dead") await until(() => lives[q.platform].at(-1)?.to === undefined, `the ${q.platform} bot to be back`, 90_000, 100);
        await sleep(outcome === "not-submitted" || outcome === "not-valid" ? 500 : 200);
      }
      // Before the next question, every attempt at this one has been acknowledged, or its bot died with it.
      await until(
        () => mine.every((a) => a.ack() !== undefined || a.dead() || Date.now() - a.at > SILENT_DROP_MS),
        `the last acknowledgements for question ${q.n}`,
        SILENT_DROP_MS + 5_000,
        50,
      );
    }

    const people = PLATFORMS.flatMap((name) =>
      queues[name].map(async (queue) => {
        let next = 0;
        for (;;) {
          const q = queue[next];
          if (!q) {
            if (creationDone && next >= queue.length) return;
            await sleep(50);
            continue;
          }
          next++;
          if (!q.short) await answer(q);
        }
      }),
    );

    // ---------------------------------------------------------------- chaos

    async function killGateway(downMs: number): Promise<void> {
      const outage: (typeof downtimes)[number] = { killedAt: Date.now() };
      downtimes.push(outage);
      gatewayUp = false;
      await sys.killGateway();
      kills.push(`gateway at ${outage.killedAt - started} ms (down ${downMs} ms + start-up)`);
      await sleep(downMs);
      outage.spawnAt = Date.now();
      await sys.startGateway();
      outage.upAt = Date.now();
      gatewayUp = true;
    }

    /** Pauses this platform's questions, waits until its bot has no prompt send in flight, kills it, restarts it. */
    async function killBot(name: BotName): Promise<void> {
      gates[name].open = false;
      // Every pending question of this platform has its delivery recorded: nothing is being sent or reported. (A send
      // for a question that is no longer pending would not be repeated by the next process anyway.)
      await until(
        async () => ((await rpcOk(url(), "question.list", { surface: name, status: "pending", limit: 10_000 })).questions as any[]).every((r) => r.deliveries.length > 0),
        `the ${name} bot to have no send in flight`,
        90_000,
        250,
      );
      const at = Date.now();
      await sys.killBot(name);
      lives[name].at(-1)!.to = at;
      const kill = kills.push(`${name} bot at ${at - started} ms`) - 1;
      gates[name].open = true; // questions for it keep coming while it is down
      await sleep(1_500);
      // Its new life counts from when it listens: what was sent to it before that went nowhere.
      const spawned = Date.now();
      restarts.push(
        sys.startBot(name).then(() => {
          lives[name].push({ from: Date.now() });
          kills[kill] += ` (restarted after 1500 ms, listening ${Date.now() - spawned} ms later)`;
        }),
      );
    }
    const restarts: Array<Promise<void>> = [];

    // Bots are killed early, while little is resolved yet: a restarted bot re-edits every copy resolved in the last
    // hour before it listens (see the report), which at Telegram's 30 messages a second takes a while.
    const chaos = (async () => {
      await sleep(3_000);
      await killGateway(1_000);
      await sleep(1_000);
      await killBot("telegram");
      await sleep(1_000);
      await killBot("discord");
      await sleep(1_000);
      await killBot("slack");
      await Promise.all(restarts); // a bot starting up needs the gateway for its first sync
      await sleep(1_000);
      await killGateway(7_000);
    })();

    const progress = process.env.CRASH_DEBUG
      ? setInterval(() => {
          const done = attempts.filter((a) => a.ack() === "submitted" || a.ack() === "already").length;
          console.log(
            `[crash debug] t=${Date.now() - started} created=${created} acked-done=${done} attempts=${attempts.length} gatewayUp=${gatewayUp} ` +
              `gates=${PLATFORMS.filter((p) => !gates[p].open).join("+") || "open"} kills=${kills.length} problems=${problems.length} stats=${JSON.stringify(stats)}`,
          );
          void import("node:fs").then(({ writeFileSync }) => {
            const detail = attempts.map((a) => ({ n: a.q.n, p: a.q.platform, id: a.q.id, how: a.how, at: a.at - started, ack: a.ack(), dead: a.dead() }));
            writeFileSync("/tmp/crash-debug.json", JSON.stringify({ problems, kills, downtimes: downtimes.map((d) => ({ k: d.killedAt - started, s: (d.spawnAt ?? 0) - started, u: (d.upAt ?? 0) - started })), detail }, null, 1));
            for (const name of ["gateway", "telegram bot", "discord bot", "slack bot"]) writeFileSync(`/tmp/crash-log-${name.replace(" ", "-")}.txt`, sys.logs().filter((l) => l.name === name).map((l) => l.output).join("\n=====\n"));
          });
        }, 5_000)
      : undefined;
    await Promise.all([creator, chaos]);
    const createdAt = Date.now();
    await Promise.all(people);
    const answeredAt = Date.now();

    // ---------------------------------------------------------------- the end state

    clearInterval(progress);
    const byId = new Map<string, any>();
    await until(
      async () => {
        const records: any[] = (await rpcOk(url(), "question.list", { limit: 10_000 })).questions;
        for (const r of records) byId.set(r.id, r);
        return records.length === TOTAL && records.every((r) => r.status !== "pending") && records;
      },
      "every question to be answered or expired",
      60_000,
      500,
    ).catch(() => undefined);
    clearInterval(indexer);
    indexPrompts();

    // Prompts sent per question and chat, counted at each fake.
    const sends = new Map<string, number>();
    const count = (id: string | undefined, chat: string) => id && sends.set(`${id}\u0000${chat}`, (sends.get(`${id}\u0000${chat}`) ?? 0) + 1);
    for (const c of sys.telegram.calls) if (c.method === "sendMessage" && !c.failed && c.body.reply_markup?.inline_keyboard) count(decodeTelegramCallbackData(c.body.reply_markup.inline_keyboard[0]?.[0]?.callback_data)?.questionId, String(c.body.chat_id));
    for (const c of sys.discord.calls) if (c.method === "POST" && c.route === "/channels/:id/messages" && c.status === 200 && c.body.components?.length) count(decodeDiscordCustomId(c.body.components[0]?.components?.[0]?.custom_id)?.questionId, c.path.split("/")[2]!);
    for (const c of sys.slack.calls) if (c.method === "chat.postMessage" && !c.failed && Array.isArray(c.body.blocks)) count(decodeSlackActionId(c.body.blocks.find((b: any) => b.type === "actions")?.elements?.[0]?.action_id)?.questionId, String(c.body.channel));
    const duplicates = [...sends.values()].reduce((n, v) => n + Math.max(0, v - 1), 0);
    if (process.env.CRASH_DEBUG) {
      for (const [key, n] of sends) {
        if (n < 2) continue;
        const id = key.split("\u0000")[0]!;
        const tg = sys.telegram.calls.filter((c) => c.method === "sendMessage" && JSON.stringify(c.body.reply_markup ?? "").includes(`|${id}|`)).map((c) => `${c.atMs! - started}${c.failed ? "F" : ""}`);
        const dc = sys.discord.calls.filter((c) => c.method === "POST" && JSON.stringify(c.body.components ?? "").includes(`|${id}|`)).map((c) => `${c.atMs! - started}:${c.status}`);
        const sl = sys.slack.calls.filter((c) => c.method === "chat.postMessage" && JSON.stringify(c.body.blocks ?? "").includes(`|${id}|`)).map((c) => `${c.atMs - started}`);
        console.log(`[crash debug] duplicate ${plan.find((q) => q.id === id)?.n} ${id}: telegram ${tg} discord ${dc} slack ${sl}; record ${JSON.stringify(byId.get(id))}`);
      }
    }

    const failures: string[] = [...problems];
    let answered = 0;
    let expired = 0;
    let expiredOnTime = 0;
    let expiredAtStartUp = 0;
    let worstLateness = 0;
    for (const q of plan) {
      const r = q.id ? byId.get(q.id) : undefined;
      if (!r) {
        failures.push(`question ${q.n}: no record`);
        continue;
      }
      const sent = sends.get(`${q.id}\u0000${q.chat}`) ?? 0;
      if (!q.short && sent !== 1) failures.push(`question ${q.n} (${q.platform}): ${sent} prompts sent`);
      if (q.short && sent > 1) failures.push(`question ${q.n} (${q.platform}, short): ${sent} prompts sent`);
      if (q.short) {
        if (r.status !== "expired") {
          failures.push(`short question ${q.n}: ${r.status}`);
          continue;
        }
        expired++;
        const outage = downtimes.find((d) => d.killedAt <= r.expiresAtMs && r.expiresAtMs <= (d.upAt ?? Infinity));
        if (outage) {
          // Its moment passed while the gateway was down: it expires at start-up.
          expiredAtStartUp++;
          if (!(r.resolvedAtMs >= r.expiresAtMs && r.resolvedAtMs >= outage.spawnAt! && r.resolvedAtMs <= outage.upAt! + 1_000)) {
            failures.push(`short question ${q.n}: expired at ${r.resolvedAtMs - outage.upAt!} ms from the restart (expiry fell in an outage)`);
          }
        } else {
          expiredOnTime++;
          const lateness = r.resolvedAtMs - r.expiresAtMs;
          worstLateness = Math.max(worstLateness, Math.abs(lateness));
          if (Math.abs(lateness) > 1_000) failures.push(`short question ${q.n}: expired ${lateness} ms from its expiresAt`);
        }
      } else {
        if (r.status !== "answered") {
          failures.push(`question ${q.n} (${q.platform}): ${r.status}${r.reason ? ` (${r.reason})` : ""}`);
          continue;
        }
        answered++;
        if (JSON.stringify(r.answers) !== JSON.stringify({ pick: [LABELS[q.choice]] }) || r.by?.user !== q.person || r.by?.surface !== q.platform) {
          failures.push(`question ${q.n}: answered ${JSON.stringify(r.answers)} by ${JSON.stringify(r.by)}, not ${LABELS[q.choice]} by ${q.person}`);
        }
        if (r.by?.via !== (q.typed ? "text" : "button")) failures.push(`question ${q.n}: via ${r.by?.via}`);
      }
    }

    // Every acknowledged answer is in the record; every press was acknowledged or its bot died with it.
    let lost = 0;
    let silentDrops = 0;
    const acks: Record<string, number> = {};
    for (const a of attempts) {
      const ack = a.ack();
      acks[ack ?? (a.dead() ? "none (bot died)" : "none")] = (acks[ack ?? (a.dead() ? "none (bot died)" : "none")] ?? 0) + 1;
      const r = byId.get(a.q.id!);
      if ((ack === "submitted" || ack === "already") && !(r?.status === "answered" && r.answers?.pick?.[0] === LABELS[a.q.choice] && r.by?.user === a.q.person)) lost++;
      if (ack === undefined && !a.dead()) silentDrops++;
    }
    if (lost) failures.push(`${lost} acknowledged answers are not in their records`);
    if (silentDrops) failures.push(`${silentDrops} presses or replies were never acknowledged by a bot that stayed up`);

    // Every delivered copy ends as a summary: no buttons left.
    const withButtons = () =>
      plan.filter((q) => {
        const p = q.id ? prompts.get(q.id) : undefined;
        if (q.platform === "telegram" && p?.telegram) return (p.telegram.reply_markup?.inline_keyboard?.length ?? 0) > 0;
        if (q.platform === "discord" && p?.discord) return p.discord.components.length > 0;
        if (q.platform === "slack" && p?.slack) return p.slack.blocks?.some((b) => b.type === "actions") ?? false;
        return false;
      });
    const stale = await until(() => withButtons().length === 0 && [], "every copy to become a summary", 60_000, 500).catch(() => withButtons());
    for (const q of stale) failures.push(`question ${q.n} (${q.platform}, ${byId.get(q.id!)?.status}): its copy still shows buttons`);

    const downs = downtimes.map((d) => `${d.upAt! - d.killedAt} ms`).join(", ");
    const summary =
      `[crash] questions=${TOTAL} (long ${plan.filter((q) => !q.short).length}, short ${plan.filter((q) => q.short).length}; ` +
      `${PLATFORMS.map((p) => `${p} ${plan.filter((q) => q.platform === p).length}`).join(", ")}) ` +
      `kills=${kills.length} (gateway 2, telegram 1, discord 1, slack 1; gateway down ${downs}) ` +
      `answered=${answered} expired=${expired} (on time ${expiredOnTime}, worst ${worstLateness} ms; at start-up ${expiredAtStartUp}) ` +
      `answers_lost=${lost} duplicates=${duplicates} silent_drops=${silentDrops} ` +
      `attempts=${attempts.length} acks=${JSON.stringify(acks)} retries: not-submitted=${stats.notSubmitted} not-valid=${stats.notValid} interaction-failed=${stats.failedVisible} bot-died=${stats.deadRetries} no-ack=${stats.noAckRetries}; ` +
      `presses while the gateway was down=${stats.pressesWhileGatewayDown} uncertain creates=${uncertainCreates} ` +
      `time: created ${createdAt - started} ms, answered ${answeredAt - started} ms, total ${Date.now() - started} ms`;
    console.log(`[crash] kills: ${kills.join("; ")}`);
    console.log(summary);
    if (process.env.CRASH_DEBUG) {
      const { writeFileSync } = await import("node:fs");
      writeFileSync("/tmp/crash-failures.json", JSON.stringify({ failures, records: plan.map((q) => ({ n: q.n, p: q.platform, short: q.short, id: q.id, r: byId.get(q.id!) })) }, null, 1));
    }
    expect(failures.slice(0, 40)).toEqual([]);
    expect(kills).toHaveLength(5);
    expect(kills.filter((k) => k.startsWith("gateway"))).toHaveLength(2);
    expect(lost).toBe(0);
    expect(duplicates).toBe(0);
    expect(answered + expired).toBe(TOTAL);
    // Presses were made while the gateway was down, and some of them were told "Not submitted" (the 7 s outage is
    // longer than the bots' 5 s wait for the link); the others went through once it was back.
    expect(stats.pressesWhileGatewayDown).toBeGreaterThan(0);
    expect(stats.notSubmitted).toBeGreaterThan(0);
  }, 240_000);
});

// ------------------------------------------------------------------ every other platform: one round trip each

describe.concurrent("crash durability on every other platform: kill -9 of its bot and of the gateway, once each", () => {
  it.skip("memory: not run; the in-memory platform lives inside the test process, with no bot process to kill", () => undefined);

  it.each(Object.keys(PLATFORM_FAKES) as LeanPlatform[])(
    "%s: a prompt sent before the kills and one asked while its bot was down are each sent once and answered once, by the person",
    async (platform) => {
      const started = Date.now();
      const marks: string[] = [];
      const mark = (what: string) => void marks.push(`${what} ${Date.now() - started} ms`);
      const sys = await startPlatformSystem(platform);
      mark("up");
      try {
        const url = sys.urls[0]!;
        const first = await askPlatform(url, platform, sys.fake, `crash-${platform}-1`);
        const firstPrompt = await until(() => sys.fake.prompt(first), "the first prompt", 30_000, 50);
        // Killed with no send in flight: its delivery is recorded (see the top of this file for that window).
        await until(async () => (await rpcOk(url, "question.get", { id: first })).deliveries.length > 0, "the first delivery to be recorded", 30_000, 50);
        mark("first prompt");
        await sys.bot.kill();
        const second = await askPlatform(url, platform, sys.fake, `crash-${platform}-2`);
        await sys.gateways[0]!.kill();
        await Promise.all([sys.gateways[0]!.start(), sys.bot.start()]);
        mark("both back");
        const secondPrompt = await until(() => sys.fake.prompt(second), "the prompt asked while the bot was down", 30_000, 50);
        mark("second prompt");
        const records = [await answerPrompt(url, sys.fake, first, firstPrompt, 1), await answerPrompt(url, sys.fake, second, secondPrompt, 2)];
        mark("answered");
        expect(records.map((r) => ({ status: r.status, answers: r.answers, by: r.by && { surface: r.by.surface, user: r.by.user, via: r.by.via } }))).toEqual(
          [1, 2].map((choice) => ({ status: "answered", answers: { pick: [LEAN_LABELS[choice]] }, by: { surface: platform, user: sys.fake.person, via: sys.fake.via } })),
        );
        expect([sys.fake.promptSends(first), sys.fake.promptSends(second)]).toEqual([1, 1]);
      } catch (error) {
        if (process.env.CRASH_DEBUG) console.log(`[crash debug] ${platform}:\n${sys.logs()}`);
        throw error;
      } finally {
        console.log(`[crash ${platform}] ${marks.join(", ")}`);
        await sys.close();
      }
    },
    120_000,
  );
});
