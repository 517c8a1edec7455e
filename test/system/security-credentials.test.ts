/**
 * Issue #17 §3 and issue #24 item 7, against the real gateway process (`ask-user-bridge gateway`, configured through
 * its environment as `start` configures it from one .env): the deployment's own secrets (METRICS_TOKEN too), and the
 * credential shapes the filter used to miss, are refused through both ways an answer reaches the store,
 * `question.reply` (typed replies, parsed by the gateway) and `question.resolve` (buttons, modals, the API). Each
 * secret goes in as is, inside a sentence, split by spaces, split across lines, glued with dashes, `+`, `~` or `*`,
 * with each of the invisible characters the review used inside, and in fullwidth forms; nothing of it reaches the
 * record, the store files under DATA_DIR, a response, or the gateway's log. The other direction: every ordinary
 * answer of the corpus (test/fixtures/credentials/ordinary-answers.json), and ordinary answers holding invisible or
 * fullwidth characters, are recorded through both methods exactly as written.
 *
 * Then with the bots as processes (test/system/system-harness.ts): a person who pastes one of the bots' secrets or
 * the gateway token, as a typed reply or as own words, is told to use the secrets flow and their message is deleted.
 */
import { randomBytes, randomInt } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEXTS } from "../../src/bridge/index.ts";
import { decodeSlackMessageRef } from "../../bots/slack/adapter.ts";
import { CALLBACK_TYPE } from "../platforms/discord/discord-payloads.ts";
import { SLACK_TEST_TOKENS } from "../platforms/slack/harness.ts";
import type { FakeTelegramMessage } from "../platforms/telegram/fake-api.ts";
import { spawnGatewayProcess, type ChildGateway } from "../helpers/cli.ts";
import { cleanup, freePort, rpc, tempDir, TOKEN, type ResFrame } from "../helpers/gateway.ts";
import { DISCORD_TOKEN, startSystem, TELEGRAM_TOKEN, until, type RunningSystem } from "./system-harness.ts";

// ------------------------------------------------------------------ made-up secrets of the real shapes

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM = `${UPPER}abcdefghijklmnopqrstuvwxyz0123456789`;
const B64URL = `${ALNUM}_-`;
const DIGITS = "0123456789";
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join("");
const hex = (bytes: number) => randomBytes(bytes).toString("hex");
/** A Discord bot token: the bot id in base64, a timestamp, an HMAC (27 characters in older tokens, 38 in newer ones). */
const discordToken = (hmacLength = 38) => `${Buffer.from(`1${pick(DIGITS, 18)}`).toString("base64url")}.${pick(B64URL, 6)}.${pick(B64URL, hmacLength)}`;
const split = (value: string, size: number, gap = " ") => value.match(new RegExp(`.{1,${size}}`, "gsu"))!.join(gap);

/** The environment of one deployment: the gateway token and every bot secret (issue #17 §3's list, and the rest). */
const DEPLOYMENT = {
  GATEWAY_TOKEN: hex(24),
  METRICS_TOKEN: hex(24),
  SLACK_SIGNING_SECRET: hex(16),
  DISCORD_BOT_TOKEN: discordToken(),
  TELEGRAM_BOT_TOKEN: `7${pick(DIGITS, 9)}:AA${pick(B64URL, 33)}`,
  SLACK_BOT_TOKEN: `xoxb-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${pick(ALNUM, 24)}`,
  SLACK_APP_TOKEN: `xapp-1-A${pick(UPPER + DIGITS, 10)}-${pick(DIGITS, 13)}-${hex(32)}`,
  TELEGRAM_WEBHOOK_SECRET: pick(B64URL, 40),
};

/** The invisible characters issue #24 slipped secrets through with: format characters (Cf), and U+034F (Mn). */
const INVISIBLE: Array<[string, string]> = [
  ["U+200B", "\u200B"],
  ["U+200E", "\u200E"],
  ["U+2063", "\u2063"],
  ["U+034F", "\u034F"],
  ["U+FEFF", "\uFEFF"],
  ["U+2060", "\u2060"],
];
/** The fullwidth form of every printable ASCII character. */
const fullwidth = (text: string) => text.replace(/[!-~]/gu, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

/** How people paste a secret, and how issues #17 and #24 slipped them through. */
const variants = (secret: string): Array<[string, string]> => [
  ["as is", secret],
  ["in a sentence", `here it is: ${secret} — thanks`],
  ["split by spaces", split(secret, 8)],
  ["split across lines", split(secret, 16, "\n")],
  ["glued with dashes", split(secret, 6, "-")],
  ...["+", "~", "*"].map((gap): [string, string] => [`glued with ${gap}`, split(secret, 6, gap)]),
  ...INVISIBLE.map(([name, gap]): [string, string] => [`with ${name} between its chunks`, split(secret, 5, gap)]),
  ["in fullwidth forms", fullwidth(secret)],
];

/** A made-up key of each shape issue #24 found passing when split by one space (its body mixes cases and digits). */
const mixed = (alphabet: string, n: number) => `aZ9${pick(alphabet, n - 3)}`;
const ONE_SPACE_KEYS: Array<[string, string]> = [
  ["a Stripe secret key", `${"sk"}_live_${mixed(ALNUM, 24)}`],
  ["a GitLab token", `glpat-${mixed(B64URL, 20)}`],
  ["an npm token", `npm_${mixed(ALNUM, 36)}`],
  ["a Google API key", `AIza${mixed(B64URL, 35)}`],
];
/** Ordinary answers with invisible and fullwidth characters in them: recorded as written, never folded. */
const ORDINARY_UNUSUAL = [
  "ｙｅｓ、ステージングでお願いします",
  "Ship it 👩‍💻👨‍👩‍👧 ✌️",
  "cafe\u0301 at 9, then deploy",
  "\u200Fשלום, go ahead\u200F",
  "ok\u00A0then, staging\u2060first",
  "Ｐｒｏｄｕｃｔｉｏｎ ｐｌｅａｓｅ",
];

/** The shapes issue #17 §3 found missing, each a fresh made-up value whose every word is under 32 characters. */
const SHAPES: Array<[string, string]> = [
  ["a JWT with spaces after its dots", `eyJhbGciOiJIUzI1NiJ9. eyJ${pick(B64URL, 24)}. ${pick(B64URL, 22)} ${pick(B64URL, 21)}`],
  ["an ASIA session key id", `ASIA${pick(UPPER + "234567", 15)}4`],
  ["a Slack webhook URL", `https://hooks.slack.com/services/T${pick(UPPER + DIGITS, 10)}/B${pick(UPPER + DIGITS, 10)}/${pick(ALNUM, 24)}`],
  ["sk-proj- split by spaces", split(`sk-proj-${pick(ALNUM, 20)}9aZ${pick(ALNUM, 25)}`, 8)],
  ["a Discord bot token (not this deployment's, 27-character HMAC)", discordToken(27)],
  ...ONE_SPACE_KEYS.flatMap(([what, key]): Array<[string, string]> => [
    [`${what} split by one space in its body`, `${key.slice(0, 12)} ${key.slice(12)}`],
    [`${what} split by one space in its prefix`, `${key.slice(0, 2)} ${key.slice(2)}`],
    [`${what} split by one space before its last two characters`, `${key.slice(0, -2)} ${key.slice(-2)}`],
    [`${what} with U+2063 inside`, split(key, 7, "\u2063")],
    [`${what} in fullwidth forms`, `key: ${fullwidth(key)}`],
  ]),
];

/**
 * Normalised like the matcher: what is left of a value once compatibility forms are folded (NFKC) and JSON escapes,
 * invisible characters, whitespace and separators are gone.
 */
const squeeze = (text: string) =>
  text.normalize("NFKC").replace(/\\u[0-9a-f]{4}|\\[ntr]|[\p{Default_Ignorable_Code_Point}\p{Cf}]|[\s._:;,|/\\'"`+~*-]+/giu, "");

const single = (extra: Record<string, unknown> = {}) => ({
  questions: [{ id: "notes", header: "Notes", question: "Anything else we should know?", options: [{ label: "Nothing" }, { label: "Later" }] }],
  timeoutSeconds: 900,
  ...extra,
});
const two = () => ({
  questions: [
    { id: "env", header: "Env", question: "Which environment?", options: [{ label: "Staging" }, { label: "Production" }] },
    { id: "notes", header: "Notes", question: "Anything else?", options: [{ label: "Nothing" }, { label: "Later" }] },
  ],
  timeoutSeconds: 900,
});

afterAll(cleanup);

describe("the gateway process refuses its deployment's secrets and the missing shapes (issue #17 §3)", () => {
  let gateway: ChildGateway;
  let dataDir: string;
  const responses: string[] = [];

  const call = async (method: string, params: unknown, token = DEPLOYMENT.GATEWAY_TOKEN): Promise<ResFrame> => {
    const { body } = await rpc(gateway.url, method, params, { token });
    responses.push(JSON.stringify(body));
    return body;
  };
  const ok = async (method: string, params: unknown) => {
    const body = await call(method, params);
    if (!body.ok) throw new Error(`${method} failed: ${body.error.code}: ${body.error.message}`);
    return body.payload;
  };

  /** Refused through question.reply and question.resolve, and through a partial reply; nothing is recorded. */
  async function expectRefused(what: string, text: string): Promise<void> {
    const replied = (await ok("question.request", single())).id;
    expect(await ok("question.reply", { id: replied, text }), `question.reply: ${what}`).toMatchObject({ kind: "invalid", reason: "credential" });

    const resolved = (await ok("question.request", single())).id;
    const refused = await call("question.resolve", { id: resolved, answers: { notes: [text] } });
    expect(refused, `question.resolve: ${what}`).toMatchObject({ ok: false, error: { code: "CREDENTIAL_REFUSED" } });

    // One line of a two-question reply: without the check it would be held as a partial answer.
    const partial = (await ok("question.request", two())).id;
    expect(await ok("question.reply", { id: partial, text: `2: ${text.replaceAll("\n", " ")}` }), `partial reply: ${what}`).toMatchObject({
      kind: "invalid",
      reason: "credential",
    });

    for (const id of [replied, resolved, partial]) {
      const record = await ok("question.get", { id });
      expect(record.status, what).toBe("pending");
      expect(record.answers, what).toBeUndefined();
      expect(record.partialAnswers ?? {}, what).toEqual({});
    }
  }

  beforeAll(async () => {
    dataDir = tempDir();
    gateway = await spawnGatewayProcess({ ...DEPLOYMENT, DATA_DIR: dataDir, GATEWAY_PORT: String(await freePort()) });
  }, 60_000);

  it.each(Object.entries(DEPLOYMENT))("%s: refused as is, in a sentence, split by spaces or lines, glued with -, +, ~ or *, with invisible characters inside, in fullwidth forms", async (name, secret) => {
    for (const [how, text] of variants(secret)) await expectRefused(`${name} ${how}`, text);
  });

  it.each(SHAPES)("%s: refused through reply and resolve", async (what, text) => {
    await expectRefused(what, text);
  });

  it("records every ordinary answer of the corpus, and ones with invisible or fullwidth characters, as written, through reply and resolve", async () => {
    const corpus = JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "credentials", "ordinary-answers.json"), "utf8")) as Record<string, unknown>;
    const answers = Object.values(corpus).filter(Array.isArray).flat() as string[];
    expect(answers.length).toBeGreaterThanOrEqual(150);
    await Promise.all(
      [...answers, ...ORDINARY_UNUSUAL].map(async (answer) => {
        const replied = (await ok("question.request", single())).id;
        const outcome = await ok("question.reply", { id: replied, text: answer });
        expect(outcome.kind, answer).toBe("answered");
        // Own words are kept as typed (trimmed); the folding is only for matching.
        if (outcome.readAs.notes[0].via === "text") expect(outcome.answers.notes, answer).toEqual([answer.trim()]);
        const resolved = (await ok("question.request", single())).id;
        const record = await ok("question.resolve", { id: resolved, answers: { notes: [answer] } });
        expect(record.status, answer).toBe("answered");
        expect(record.answers.notes, answer).toEqual([answer]);
      }),
    );
  }, 60_000);

  it("…and none of the refused secrets is in any response, the store files or the gateway's log", async () => {
    const files = readdirSync(dataDir).map((file) => readFileSync(join(dataDir, file)).toString("latin1"));
    const haystacks: Array<[string, string]> = [
      ["the responses", responses.join("\n")],
      ["the store files", files.join("\n")],
      ["the gateway's log", gateway.run.stdout() + gateway.run.stderr()],
    ];
    for (const [where, haystack] of haystacks) {
      const squeezed = squeeze(haystack);
      for (const [name, secret] of [...Object.entries(DEPLOYMENT), ...SHAPES]) {
        expect(squeezed.includes(squeeze(secret)), `${name} in ${where}`).toBe(false);
      }
    }
  });

  it("refuses the token the gateway generated under DATA_DIR when GATEWAY_TOKEN is unset", async () => {
    const generatedDir = tempDir();
    const generated = await spawnGatewayProcess({ DATA_DIR: generatedDir, GATEWAY_PORT: String(await freePort()) });
    const token = readFileSync(join(generatedDir, "gateway-token"), "utf8").trim();
    const callGenerated = async (method: string, params: unknown) => (await rpc(generated.url, method, params, { token })).body;
    for (const [how, text] of variants(token)) {
      const replied = await callGenerated("question.request", single());
      const resolved = await callGenerated("question.request", single());
      if (!replied.ok || !resolved.ok) throw new Error("question.request failed");
      expect(await callGenerated("question.reply", { id: replied.payload.id, text }), how).toMatchObject({ ok: true, payload: { kind: "invalid", reason: "credential" } });
      expect(await callGenerated("question.resolve", { id: resolved.payload.id, answers: { notes: [text] } }), how).toMatchObject({
        ok: false,
        error: { code: "CREDENTIAL_REFUSED" },
      });
    }
    await generated.kill("SIGTERM");
  });
});

// ------------------------------------------------------------------ through the bots

const TG = { group: 9_301, person: { id: 9_301, first_name: "Ada" } };
const DC = { channel: "700000000000009301", person: { id: "100000000000009301", name: "Ada" } };
const SL = { channel: "C0CREDS", person: { id: "U0CREDS", name: "Ada" } };

describe("a person pasting a deployment secret to a bot is told to use the secrets flow (issue #17 §3)", () => {
  let sys: RunningSystem;

  beforeAll(async () => {
    sys = await startSystem({
      telegram: { allowed: [String(TG.person.id)] },
      discord: { channels: [DC.channel], people: [DC.person], allowed: [DC.person.id] },
      slack: { channels: [SL.channel], people: [SL.person], allowed: [SL.person.id] },
      // As `start` runs them: the gateway reads the same .env as the bots, so it knows their secrets.
      gatewayEnv: {
        TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
        DISCORD_BOT_TOKEN: DISCORD_TOKEN,
        SLACK_BOT_TOKEN: SLACK_TEST_TOKENS.bot,
        SLACK_APP_TOKEN: SLACK_TEST_TOKENS.app,
        SLACK_SIGNING_SECRET: SLACK_TEST_TOKENS.signingSecret,
      },
    });
  }, 120_000);
  afterAll(async () => {
    await sys?.close();
  });

  const url = () => sys.gateway().url;
  const okAdmin = async (method: string, params: unknown) => {
    const { body } = await rpc(url(), method, params, { token: TOKEN });
    if (!body.ok) throw new Error(`${method} failed: ${body.error.code}`);
    return body.payload;
  };
  const ask = async (surface: string, chat: string) => (await okAdmin("question.request", { ...single(), targets: [{ surface, chat }] })).id as string;
  const delivery = (id: string) =>
    until(async () => (await okAdmin("question.get", { id })).deliveries[0] as { messageRef: string } | undefined, `the delivery of ${id}`, 30_000);
  const notices = {
    telegram: () => sys.telegram.calls.filter((c) => c.method === "sendMessage" && !c.failed && Number(c.body.chat_id) === TG.group && c.body.text === TEXTS.credential).length,
    discord: () => sys.discord.messagesIn(DC.channel).filter((m) => m.content === TEXTS.credential).length,
    slack: () =>
      sys.slack.botMessages(SL.channel).filter((m) => m.text === TEXTS.credential).length +
      sys.slack.ephemerals.filter((e) => e.channel === SL.channel && e.text === TEXTS.credential).length,
  };

  it("Telegram: the Slack signing secret split by spaces as a typed reply, the gateway token as own words", async () => {
    const id = await ask("telegram", String(TG.group));
    const { messageRef } = await delivery(id);
    const prompt = (): FakeTelegramMessage => sys.telegram.messages().find((m) => m.chat.id === TG.group && String(m.message_id) === messageRef)!;

    let before = notices.telegram();
    const typed = sys.telegram.type(TG.group, TG.person, `the secret: ${split(SLACK_TEST_TOKENS.signingSecret, 8)}`, prompt());
    await until(() => notices.telegram() > before, "the secrets-flow notice in Telegram", 30_000);
    await until(() => typed.deleted, "the typed secret to be deleted", 30_000);

    const other = prompt().sent_markup.inline_keyboard.findIndex((row: any[]) => row[0].text === "Other…");
    await sys.telegram.pressData(prompt(), prompt().sent_markup.inline_keyboard[other][0].callback_data, TG.person, 30_000);
    const forceReply = await until(() => sys.telegram.botMessages(TG.group).find((m) => m.reply_markup?.force_reply), "the ForceReply", 30_000);
    before = notices.telegram();
    const own = sys.telegram.type(TG.group, TG.person, TOKEN, forceReply);
    await until(() => notices.telegram() > before, "the secrets-flow notice for own words in Telegram", 30_000);
    await until(() => own.deleted, "the own-words secret to be deleted", 30_000);

    expect(await okAdmin("question.get", { id })).toMatchObject({ status: "pending" });
  }, 90_000);

  it("Discord: the Telegram bot token as a typed reply, the Slack bot token as own words", async () => {
    const id = await ask("discord", DC.channel);
    const { messageRef } = await delivery(id);
    const message = sys.discord.message(messageRef.split("/")[1]!);

    const before = notices.discord();
    const typed = sys.discord.type(DC.channel, sys.discord.user(DC.person.id)!, `token is ${TELEGRAM_TOKEN} ok`, message);
    await until(() => notices.discord() > before, "the secrets-flow notice in Discord", 30_000);
    await until(() => typed.deleted, "the typed secret to be deleted", 30_000);

    const otherButton = message.sentComponents.flatMap((row: any) => row.components).find((b: any) => b.label === "Other…");
    const opened = sys.discord.press(message, otherButton.custom_id, sys.discord.user(DC.person.id)!);
    expect((await sys.discord.acknowledged(opened)).type).toBe(CALLBACK_TYPE.MODAL);
    expect(await sys.discord.firstNotice(sys.discord.submitModal(opened, SLACK_TEST_TOKENS.bot))).toBe(TEXTS.credential);

    expect(await okAdmin("question.get", { id })).toMatchObject({ status: "pending" });
  }, 90_000);

  it("Slack: the Discord bot token as a typed reply, the Slack app token as own words", async () => {
    const id = await ask("slack", SL.channel);
    const { messageRef } = await delivery(id);
    const { channel, ts } = decodeSlackMessageRef(messageRef)!;

    let before = notices.slack();
    const { message } = await sys.slack.type(channel, SL.person, `use ${DISCORD_TOKEN} please`, ts);
    await until(() => notices.slack() > before, "the secrets-flow notice in Slack", 30_000);
    await until(() => message.deleted, "the typed secret to be deleted", 30_000);

    const prompt = sys.slack.message(channel, ts);
    const other = prompt.sentBlocks!.find((b) => b.type === "actions").elements.findIndex((e: any) => e.text.text === "Other…");
    const { triggerId } = await sys.slack.press(prompt, other, SL.person);
    const opened = await until(() => sys.slack.views.find((v) => v.trigger_id === triggerId), "the modal in Slack", 30_000);
    before = notices.slack();
    expect(await sys.slack.submitView(opened.view, SL.person, SLACK_TEST_TOKENS.app)).toBe(200);
    await until(() => notices.slack() > before, "the secrets-flow notice for the modal in Slack", 30_000);

    expect(await okAdmin("question.get", { id })).toMatchObject({ status: "pending" });
  }, 90_000);

  it("…and none of those secrets is in any record or the store files", async () => {
    const records = JSON.stringify((await okAdmin("question.list", {})).questions);
    const files = readdirSync(sys.dataDir).map((file) => readFileSync(join(sys.dataDir, file)).toString("latin1"));
    for (const haystack of [records, ...files]) {
      const squeezed = squeeze(haystack);
      for (const secret of [SLACK_TEST_TOKENS.signingSecret, TOKEN, TELEGRAM_TOKEN, SLACK_TEST_TOKENS.bot, DISCORD_TOKEN, SLACK_TEST_TOKENS.app]) {
        expect(squeezed.includes(squeeze(secret)), secret.slice(0, 4)).toBe(false);
      }
    }
  });
});
