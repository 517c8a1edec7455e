/**
 * Security, against the real processes: the gateway and the three bots as children, the platforms faked in-process.
 *
 * - Authentication: no token, a wrong token, or the right token in the wrong place (query string, cookie, request
 *   body, Basic auth, other headers, the WebSocket subprotocol) gets no access to the WebSocket, the HTTP mirror or the
 *   Control UI's data. The bearer scheme name is case-insensitive (RFC 7235 §2.1, which RFC 6750 §2.1 builds on), so
 *   `bearer` and `BEARER` are accepted; RFC 6750's other two ways (§2.2 form body, §2.3 `access_token` query) are
 *   optional and refused here on purpose: a token in a URL ends up in logs and histories.
 * - Who may answer, through the "Other…" path: a person outside the allow-list can neither open the modal (Slack,
 *   Discord) or the own-words reply (Telegram), nor submit one opened for someone else. (Buttons, typed replies,
 *   forged callbacks, stale taps, mention injection and the Slack signature / Telegram webhook secret are covered by
 *   test/scenarios/bot-scenarios.ts, test/platforms/discord/specifics.test.ts, test/platforms/slack/slack.test.ts, test/platforms/slack/specifics.test.ts and
 *   test/platforms/telegram/specifics.test.ts.)
 * - Credentials: replies shaped like credentials (sk-, xoxb-, ghp_, AKIA, a Telegram bot token, a JWT, a PEM private
 *   key, a long high-entropy string), typed as a reply and given as own words on each platform, are refused with the
 *   secrets-flow notice, and never reach the agent (events, the record, waitAnswer), the store files under DATA_DIR
 *   (the SQLite database, its -wal and -shm) or the logs of any process.
 */
import { randomInt } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, type RawData } from "ws";
import { TEXTS } from "../../src/bridge/index.ts";
import { decodeSlackMessageRef } from "../../bots/slack/adapter.ts";
import { CALLBACK_TYPE } from "../platforms/discord/discord-payloads.ts";
import type { FakeTelegramMessage } from "../platforms/telegram/fake-api.ts";
import { RawWs, rpc, rpcOk, sleep, TOKEN, WRONG_TOKEN } from "../helpers/gateway.ts";
import { startSystem, until, type RunningSystem } from "./system-harness.ts";

// ------------------------------------------------------------------ people and places

const TG = { person: { id: 101, first_name: "Ada" }, stranger: { id: 666, first_name: "Mallory" }, group: -1_009 };
const DC = { person: { id: "100000000000000101", name: "Ada" }, stranger: { id: "100000000000000666", name: "Mallory" } };
const SL = { person: { id: "U0ADA", name: "Ada" }, stranger: { id: "U0MALLORY", name: "Mallory" } };
const SHAPES = ["sk-", "xoxb-", "ghp_", "AKIA", "telegram-bot-token", "jwt", "pem", "high-entropy"] as const;
type Shape = (typeof SHAPES)[number];
const tgCredChat = (i: number) => 9_101 + i; // private chats: the person's own id is the chat
const dcChannel = (i: number) => `7000000000000001${String(i).padStart(2, "0")}`;
const slChannel = (i: number) => `C0SEC${i}`;
const MODAL_CHAT = 20; // index of the chat used for the allow-list tests

// ------------------------------------------------------------------ credential shapes

const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64URL = `${ALNUM}_-`;
const B64 = `${ALNUM}+/`;

/** A fresh secret of that shape, different every time, so each one is traced on its own. */
function secret(shape: Shape): string {
  switch (shape) {
    case "sk-":
      return `sk-proj-${pick(ALNUM, 40)}`;
    case "xoxb-":
      return `xoxb-${pick("0123456789", 12)}-${pick("0123456789", 13)}-${pick(ALNUM, 24)}`;
    case "ghp_":
      return `ghp_${pick(ALNUM, 36)}`;
    case "AKIA":
      return `AKIA${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`;
    case "telegram-bot-token":
      return `${pick("123456789", 10)}:AA${pick(B64URL, 33)}`;
    case "jwt":
      return `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${pick(B64URL, 40)}.${pick(B64URL, 43)}`;
    case "pem":
      return `-----BEGIN PRIVATE KEY-----\nMIIEv${pick(B64, 59)}\n${pick(B64, 64)}\n-----END PRIVATE KEY-----`;
    case "high-entropy":
      return `${pick(ALNUM, 20)}9aZ${pick(ALNUM, 25)}`;
  }
}

/** The parts of a secret that must appear nowhere: the whole, and its random body in 16-character pieces. */
function needles(value: string): string[] {
  const body = value.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(/^(sk-proj-|xoxb-|ghp_|AKIA|eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\.)/, "");
  const pieces = body
    .split(/\s+/)
    .flatMap((part) => Array.from({ length: Math.floor(part.length / 16) }, (_, i) => part.slice(i * 16, i * 16 + 16)))
    .filter((piece) => piece.length === 16);
  return [value, ...pieces];
}

const single = (n: string) => ({
  questions: [{ id: "choice", header: "Choice", question: `Which one for ${n}?`, options: [{ label: "Staging" }, { label: "Production" }] }],
  timeoutSeconds: 900,
});

describe("security (gateway and bots as processes)", () => {
  let sys: RunningSystem;
  let agent: RawWs;
  const secrets: Array<{ where: string; value: string }> = [];

  beforeAll(async () => {
    sys = await startSystem({
      telegram: { allowed: [String(TG.person.id), ...SHAPES.map((_, i) => String(tgCredChat(i)))] },
      discord: {
        channels: [...SHAPES.map((_, i) => dcChannel(i)), dcChannel(MODAL_CHAT)],
        people: [DC.person, DC.stranger],
        allowed: [DC.person.id],
      },
      slack: { channels: [...SHAPES.map((_, i) => slChannel(i)), slChannel(MODAL_CHAT)], people: [SL.person, SL.stranger], allowed: [SL.person.id] },
      // The wrong tokens below come from clients of their own (X-Forwarded-For through a trusted proxy at 127.0.0.1),
      // so the address's lockout (test/system/security-proxy.test.ts) never turns this file's 401s into 429s.
      gatewayEnv: { GATEWAY_TRUSTED_PROXIES: "127.0.0.1,::1" },
    });
    agent = await RawWs.connect(sys.gateway().wsUrl);
  }, 120_000);
  afterAll(async () => {
    agent?.close();
    await sys?.close();
  });

  const url = () => sys.gateway().url;
  const ask = async (surface: string, chat: string, what: string, extra: Record<string, unknown> = {}) =>
    (await rpcOk(url(), "question.request", { ...single(what), ...extra, targets: [{ surface, chat }] })).id as string;
  const deliveryOf = (id: string) =>
    until(async () => (await rpcOk(url(), "question.get", { id })).deliveries[0] as { chat: string; messageRef: string } | undefined, `the delivery of ${id}`, 30_000);
  const status = async (id: string) => (await rpcOk(url(), "question.get", { id })).status as string;

  // ------------------------------------------------------------------ authentication

  describe("authentication: no token, a wrong token, or the token in the wrong place", () => {
    const SECRET_QUESTION = "Top secret plan 42?";
    let count = 0;
    beforeAll(async () => {
      await rpcOk(url(), "question.request", { questions: [{ id: "plan", header: "Plan", question: SECRET_QUESTION, options: [{ label: "A" }, { label: "B" }] }], timeoutSeconds: 900 });
      count = (await rpcOk(url(), "question.list", {})).questions.length;
    });
    const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
    /** A client address of its own for each request (X-Forwarded-For, from the trusted proxy at 127.0.0.1). */
    let clients = 0;
    const client = () => ({ "x-forwarded-for": `198.51.100.${++clients}` });

    it.each<[string, string, RequestInit]>([
      ["no credentials at all", "", {}],
      ["a wrong bearer token", "", { headers: { authorization: `Bearer ${WRONG_TOKEN}` } }],
      ["the token with a suffix", "", { headers: { authorization: `Bearer ${TOKEN}x` } }],
      ["a prefix of the token", "", { headers: { authorization: `Bearer ${TOKEN.slice(0, 16)}` } }],
      ["an empty bearer", "", { headers: { authorization: "Bearer " } }],
      ["?token= in the query", `?token=${TOKEN}`, {}],
      ["?access_token= in the query (RFC 6750 §2.3)", `?access_token=${TOKEN}`, {}],
      ["the token in the JSON body", "", { body: JSON.stringify({ token: TOKEN }) }],
      ["access_token in a form body (RFC 6750 §2.2)", "", { headers: { "content-type": "application/x-www-form-urlencoded" }, body: `access_token=${TOKEN}` }],
      ["the token as the session cookie's value", "", { headers: { cookie: `aub_session=${TOKEN}` } }],
      ["the token in another cookie", "", { headers: { cookie: `token=${TOKEN}; gateway_token=${TOKEN}` } }],
      ["Basic auth with the token as password", "", { headers: { authorization: basic("ops", TOKEN) } }],
      ["Basic auth with the token as user", "", { headers: { authorization: basic(TOKEN, "") } }],
      ["the bare token as Authorization", "", { headers: { authorization: TOKEN } }],
      ["Authorization: Token <token>", "", { headers: { authorization: `Token ${TOKEN}` } }],
      ["an X-Gateway-Token header", "", { headers: { "x-gateway-token": TOKEN, "x-api-key": TOKEN } }],
    ])("the HTTP mirror refuses %s with 401, shows nothing and changes nothing", async (_what, query, init) => {
      for (const method of ["question.list", "question.request"]) {
        const headers = { "content-type": "application/json", ...client(), ...(init.headers as Record<string, string>) };
        const body = init.body ?? (method === "question.request" ? JSON.stringify(single("intruder")) : "{}");
        const res = await fetch(`${url()}/rpc/${method}${query}`, { method: "POST", headers, body });
        const text = await res.text();
        expect(res.status, method).toBe(401);
        expect(JSON.parse(text)).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
        expect(text).not.toContain(SECRET_QUESTION);
      }
      expect((await rpcOk(url(), "question.list", {})).questions).toHaveLength(count);
    });

    it.each(["bearer", "BEARER", "bEaReR"])("the bearer scheme is case-insensitive (RFC 7235 §2.1): %s is accepted on HTTP and on /ws", async (scheme) => {
      const res = await fetch(`${url()}/rpc/question.list`, { method: "POST", headers: { authorization: `${scheme} ${TOKEN}`, "content-type": "application/json", ...client() }, body: "{}" });
      expect(res.status).toBe(200);
      const ws = await openWs(`${sys.gateway().wsUrl}`, { authorization: `${scheme} ${TOKEN}`, ...client() });
      expect(ws.refused).toBeUndefined();
      expect(await ws.call("question.list", { limit: 1 })).toMatchObject({ ok: true });
      ws.close();
    });

    it("a wrong bearer token on /ws is refused at the upgrade (401)", async () => {
      for (const authorization of [`Bearer ${WRONG_TOKEN}`, `Bearer ${TOKEN}x`, `bearer ${TOKEN.slice(1)}`]) {
        expect((await openWs(sys.gateway().wsUrl, { authorization, ...client() })).refused).toBe(401);
      }
    });

    it.each<[string, string, Record<string, string>, string[]?]>([
      ["no credentials", "", {}],
      ["?token= in the query", `?token=${TOKEN}`, {}],
      ["?access_token= in the query", `?access_token=${TOKEN}`, {}],
      ["the token as the session cookie's value", "", { cookie: `aub_session=${TOKEN}` }],
      ["Basic auth with the token as password", "", { authorization: basic("ops", TOKEN) }],
      ["the bare token as Authorization", "", { authorization: TOKEN }],
      ["an X-Gateway-Token header", "", { "x-gateway-token": TOKEN }],
      ["the token as the WebSocket subprotocol", "", {}, [TOKEN]],
    ])("a WebSocket with %s gets UNAUTHORIZED for every request and no events", async (_what, query, headers, protocols) => {
      const ws = await openWs(`${sys.gateway().wsUrl}${query}`, { ...headers, ...client() }, protocols);
      if (ws.refused !== undefined) {
        expect(ws.refused).toBe(401); // refusing the upgrade outright is fine too
        return;
      }
      for (const [method, params] of [["question.list", {}], ["question.get", { id: "q0" }], ["question.request", single("intruder")]] as const) {
        expect(await ws.call(method, params)).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
      }
      // Tokens in the wrong fields of a connect frame do not count either (and end the connection).
      await rpcOk(url(), "question.request", single("an event nobody unauthenticated may see"));
      await sleep(300);
      expect(ws.events).toEqual([]);
      expect(await ws.call("connect", { password: TOKEN, auth: `Bearer ${TOKEN}` })).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
      expect(await ws.closed).toBe(4401);
      expect(ws.raw.join("\n")).not.toContain(SECRET_QUESTION);
      count++;
    });

    it.each<[string, string, Record<string, string>]>([
      ["no credentials", "/", {}],
      ["a wrong ?token=", `/?token=${WRONG_TOKEN}`, {}],
      ["?access_token= (only /?token= signs in)", `/?access_token=${TOKEN}`, {}],
      ["the token as the session cookie's value", "/", { cookie: `aub_session=${TOKEN}` }],
      ["a forged session cookie", "/", { cookie: `aub_session=v1.9999999999.${"A".repeat(43)}` }],
      ["a bearer token (the page signs in with the form or /?token=, not a header)", "/", { authorization: `Bearer ${TOKEN}` }],
      ["Basic auth", "/", { authorization: basic("ops", TOKEN) }],
    ])("the Control UI with %s shows the sign-in form, no data and sets no cookie", async (_what, path, headers) => {
      const res = await fetch(`${url()}${path}`, { headers: { ...headers, ...client() }, redirect: "manual" });
      const html = await res.text();
      expect(res.status).toBe(401);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(html).toContain("Gateway token");
      expect(html).not.toContain(SECRET_QUESTION);
    });

    it("the Control UI refuses a sign-in posted from another site, even with the right token", async () => {
      for (const headers of [{ origin: "http://evil.example" }, { "sec-fetch-site": "cross-site" }] as Array<Record<string, string>>) {
        const res = await fetch(`${url()}/login`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
          body: `token=${TOKEN}`,
          redirect: "manual",
        });
        expect(res.status).toBe(401);
        expect(res.headers.get("set-cookie")).toBeNull();
      }
      const json = await fetch(`${url()}/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: TOKEN }), redirect: "manual" });
      expect(json.status).toBe(401);
      expect(json.headers.get("set-cookie")).toBeNull();
    });
  });

  // ------------------------------------------------------------------ who may answer, through Other…

  describe("who may answer: a person outside the allow-list cannot answer through a modal or own words", () => {
    it("Slack: the stranger's Other… opens no modal, and a modal opened for the person cannot be submitted by the stranger", async () => {
      const id = await ask("slack", slChannel(MODAL_CHAT), "slack modal");
      const { channel, ts } = decodeSlackMessageRef((await deliveryOf(id)).messageRef)!;
      const prompt = sys.slack.message(channel, ts);
      const other = prompt.sentBlocks!.find((b) => b.type === "actions").elements.findIndex((e: any) => e.text.text === "Other…");

      const strangerNotices = sys.slack.ephemeralsTo(SL.stranger.id).length;
      const { triggerId: strangerTrigger } = await sys.slack.press(prompt, other, SL.stranger);
      expect((await sys.slack.waitForEphemeral(SL.stranger.id, strangerNotices, 15_000)).text).toBe(TEXTS.someoneElse);
      expect(sys.slack.views.some((v) => v.trigger_id === strangerTrigger)).toBe(false);

      const { triggerId } = await sys.slack.press(prompt, other, SL.person);
      const opened = await until(() => sys.slack.views.find((v) => v.trigger_id === triggerId), "the person's modal");
      expect(await sys.slack.submitView(opened.view, SL.stranger, "Mallory's own plan")).toBe(200);
      expect((await sys.slack.waitForEphemeral(SL.stranger.id, strangerNotices + 1, 15_000)).text).toBe(TEXTS.someoneElse);
      expect(await status(id)).toBe("pending");

      await sys.slack.submitView(opened.view, SL.person, "Ada's own plan");
      expect(await rpcOk(url(), "question.waitAnswer", { id, timeoutMs: 15_000 })).toMatchObject({ status: "answered", answers: { answers: { choice: ["Ada's own plan"] } } });
    });

    // (The stranger's own Other… press on Discord is refused in test/platforms/discord/discord.test.ts.)
    it("Discord: a modal opened for the person and submitted by the stranger is refused", async () => {
      const id = await ask("discord", dcChannel(MODAL_CHAT), "discord modal");
      const message = sys.discord.message((await deliveryOf(id)).messageRef.split("/")[1]!);
      const otherButton = message.sentComponents.flatMap((row: any) => row.components).find((b: any) => b.label === "Other…");
      const opened = sys.discord.press(message, otherButton.custom_id, sys.discord.user(DC.person.id)!);
      expect((await sys.discord.acknowledged(opened)).type).toBe(CALLBACK_TYPE.MODAL);

      const forged = sys.discord.submitModal(opened, "Mallory's own plan", sys.discord.user(DC.stranger.id)!);
      expect(await sys.discord.firstNotice(forged)).toBe(TEXTS.someoneElse);
      expect(await status(id)).toBe("pending");

      await sys.discord.acknowledged(sys.discord.submitModal(opened, "Ada's own plan"));
      expect(await rpcOk(url(), "question.waitAnswer", { id, timeoutMs: 15_000 })).toMatchObject({ status: "answered", answers: { answers: { choice: ["Ada's own plan"] } } });
    });

    it("Telegram: the stranger's Other… asks for nothing, and a reply to the person's own-words prompt by the stranger records nothing", async () => {
      const id = await ask("telegram", String(TG.group), "telegram own words");
      const ref = (await deliveryOf(id)).messageRef;
      const prompt = sys.telegram.messages().find((m) => m.chat.id === TG.group && String(m.message_id) === ref)!;
      const other = prompt.sent_markup.inline_keyboard.findIndex((row: any[]) => row[0].text === "Other…");
      const forceReplies = () => sys.telegram.botMessages(TG.group).filter((m) => m.reply_markup?.force_reply);

      expect(await sys.telegram.press(prompt, other, TG.stranger)).toBe(TEXTS.someoneElse);
      await sleep(300);
      expect(forceReplies()).toHaveLength(0);

      await sys.telegram.press(prompt, other, TG.person);
      const forceReply = await until(() => forceReplies()[0], "the ForceReply for the person");
      sys.telegram.type(TG.group, TG.stranger, "Mallory's own plan", forceReply);
      await sleep(1_000);
      expect(await status(id)).toBe("pending");

      sys.telegram.type(TG.group, TG.person, "Ada's own plan", forceReply);
      expect(await rpcOk(url(), "question.waitAnswer", { id, timeoutMs: 15_000 })).toMatchObject({ status: "answered", answers: { answers: { choice: ["Ada's own plan"] } } });
    });
  });

  // ------------------------------------------------------------------ credentials

  describe("credentials never reach the agent, the store or the logs", () => {
    /** What a platform person does: a typed reply to the prompt, then own words through Other…; each must be refused. */
    interface Platform {
      name: string;
      chat(i: number): string;
      typed(i: number, ref: string, text: string): Promise<void>;
      ownWords(i: number, ref: string, text: string): Promise<void>;
      answer(i: number, ref: string): Promise<void>;
    }

    const secretsNotices = {
      telegram: (chat: number) => sys.telegram.calls.filter((c) => c.method === "sendMessage" && !c.failed && Number(c.body.chat_id) === chat && c.body.text === TEXTS.credential).length,
      slack: (channel: string) =>
        sys.slack.botMessages(channel).filter((m) => m.text === TEXTS.credential).length + sys.slack.ephemerals.filter((e) => e.channel === channel && e.text === TEXTS.credential).length,
      discord: (channel: string) => sys.discord.messagesIn(channel).filter((m) => m.content === TEXTS.credential).length,
    };
    const tgMessage = (chat: number, ref: string): FakeTelegramMessage => sys.telegram.messages().find((m) => m.chat.id === chat && String(m.message_id) === ref)!;

    const platforms: Platform[] = [
      {
        name: "telegram",
        chat: (i) => String(tgCredChat(i)),
        async typed(i, ref, text) {
          const chat = tgCredChat(i);
          const before = secretsNotices.telegram(chat);
          const sent = sys.telegram.type(chat, { id: chat, first_name: "Ada" }, text, tgMessage(chat, ref));
          await until(() => secretsNotices.telegram(chat) > before, `the secrets-flow notice in Telegram chat ${chat}`, 30_000);
          await until(() => sent.deleted, `the credential message in ${chat} to be deleted`, 30_000);
        },
        async ownWords(i, ref, text) {
          const chat = tgCredChat(i);
          const person = { id: chat, first_name: "Ada" };
          const prompt = tgMessage(chat, ref);
          const other = prompt.sent_markup.inline_keyboard.findIndex((row: any[]) => row[0].text === "Other…");
          await sys.telegram.pressData(prompt, prompt.sent_markup.inline_keyboard[other][0].callback_data, person, 30_000);
          const forceReply = await until(() => sys.telegram.botMessages(chat).find((m) => m.reply_markup?.force_reply), `the ForceReply in ${chat}`, 30_000);
          const before = secretsNotices.telegram(chat);
          const sent = sys.telegram.type(chat, person, text, forceReply);
          await until(() => secretsNotices.telegram(chat) > before, `the secrets-flow notice for own words in ${chat}`, 30_000);
          await until(() => sent.deleted, `the own-words credential in ${chat} to be deleted`, 30_000);
        },
        async answer(i, ref) {
          const chat = tgCredChat(i);
          expect(await sys.telegram.pressData(tgMessage(chat, ref), tgMessage(chat, ref).sent_markup.inline_keyboard[0][0].callback_data, { id: chat, first_name: "Ada" }, 30_000)).toBe(TEXTS.submitted);
        },
      },
      {
        name: "slack",
        chat: (i) => slChannel(i),
        async typed(i, ref, text) {
          const { channel, ts } = decodeSlackMessageRef(ref)!;
          const before = secretsNotices.slack(channel);
          const { message } = await sys.slack.type(channel, SL.person, text, ts);
          await until(() => secretsNotices.slack(channel) > before, `the secrets-flow notice in ${channel}`);
          await until(() => message.deleted, `the credential message in ${channel} to be deleted`);
        },
        async ownWords(i, ref, text) {
          const { channel, ts } = decodeSlackMessageRef(ref)!;
          const prompt = sys.slack.message(channel, ts);
          const other = prompt.sentBlocks!.find((b) => b.type === "actions").elements.findIndex((e: any) => e.text.text === "Other…");
          const { triggerId } = await sys.slack.press(prompt, other, SL.person);
          const opened = await until(() => sys.slack.views.find((v) => v.trigger_id === triggerId), `the modal in ${channel}`);
          const before = secretsNotices.slack(channel);
          expect(await sys.slack.submitView(opened.view, SL.person, text)).toBe(200);
          await until(() => secretsNotices.slack(channel) > before, `the secrets-flow notice for the modal in ${channel}`);
        },
        async answer(i, ref) {
          const { channel, ts } = decodeSlackMessageRef(ref)!;
          const before = sys.slack.ephemeralsTo(SL.person.id).length;
          await sys.slack.press(sys.slack.message(channel, ts), 0, SL.person);
          await sys.slack.waitForEphemeral(SL.person.id, before, 15_000);
        },
      },
      {
        name: "discord",
        chat: (i) => dcChannel(i),
        async typed(i, ref, text) {
          const channel = dcChannel(i);
          const before = secretsNotices.discord(channel);
          const sent = sys.discord.type(channel, sys.discord.user(DC.person.id)!, text, sys.discord.message(ref.split("/")[1]!));
          await until(() => secretsNotices.discord(channel) > before, `the secrets-flow notice in ${channel}`);
          await until(() => sent.deleted, `the credential message in ${channel} to be deleted`);
        },
        async ownWords(_i, ref, text) {
          const message = sys.discord.message(ref.split("/")[1]!);
          const otherButton = message.sentComponents.flatMap((row: any) => row.components).find((b: any) => b.label === "Other…");
          const opened = sys.discord.press(message, otherButton.custom_id, sys.discord.user(DC.person.id)!);
          expect((await sys.discord.acknowledged(opened)).type).toBe(CALLBACK_TYPE.MODAL);
          expect(await sys.discord.firstNotice(sys.discord.submitModal(opened, text))).toBe(TEXTS.credential);
        },
        async answer(_i, ref) {
          const message = sys.discord.message(ref.split("/")[1]!);
          const interaction = sys.discord.press(message, message.sentComponents[0].components[0].custom_id, sys.discord.user(DC.person.id)!);
          expect(await sys.discord.firstNotice(interaction)).toBe(TEXTS.submitted);
        },
      },
    ];

    it("8 credential shapes × 3 platforms × (typed reply, own words): each refused with the secrets-flow notice and the message deleted", async () => {
      const started = Date.now();
      await Promise.all(
        platforms.flatMap((platform) =>
          SHAPES.map(async (shape, i) => {
            const id = await ask(platform.name, platform.chat(i), `${platform.name} ${shape}`);
            const { messageRef } = await deliveryOf(id);
            const typed = secret(shape);
            const own = secret(shape);
            secrets.push({ where: `${platform.name} typed ${shape}`, value: typed }, { where: `${platform.name} own words ${shape}`, value: own });
            // Typed: inside a sentence, as people paste them. Own words: the bare secret.
            await platform.typed(i, messageRef, `here is the key you asked for: ${typed} thanks`);
            await platform.ownWords(i, messageRef, own);
            expect(await status(id), `${platform.name} ${shape}`).toBe("pending");
            await platform.answer(i, messageRef);
            const result = await rpcOk(url(), "question.waitAnswer", { id, timeoutMs: 15_000 });
            expect(result).toMatchObject({ status: "answered", answers: { answers: { choice: ["Staging"] } } });
            for (const value of [typed, own]) for (const needle of needles(value)) expect(JSON.stringify(result)).not.toContain(needle);
          }),
        ),
      );
      expect(secrets).toHaveLength(SHAPES.length * platforms.length * 2);

      // A two-question reply with a credential on one line is refused whole: nothing is held as a partial answer.
      const id = (
        await rpcOk(url(), "question.request", {
          questions: [single("a").questions[0], { ...single("b").questions[0], id: "token_use", header: "Token use" }],
          timeoutSeconds: 900,
          targets: [{ surface: "slack", chat: slChannel(0) }],
        })
      ).id as string;
      const { messageRef } = await deliveryOf(id);
      const partial = secret("ghp_");
      secrets.push({ where: "slack two-question reply", value: partial });
      await platforms[1]!.typed(0, messageRef, `1: Production\n2: ${partial}`);
      const record = await rpcOk(url(), "question.get", { id });
      expect(record.status).toBe("pending");
      expect(record.partialAnswers ?? {}).toEqual({});
      console.log(`[security] ${secrets.length} credential-shaped replies refused on 3 platforms in ${Date.now() - started} ms`);
    }, 120_000);

    it("…and none of them is in the agent's events, any record, the store files, or any process's log", async () => {
      await sleep(500); // let the last writes and log lines land
      const events = JSON.stringify(agent.events);
      const records = JSON.stringify((await rpcOk(url(), "question.list", {})).questions);
      const files = [sys.dataDir, sys.botDataDir].flatMap(function walk(dir: string): string[] {
        return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
      });
      expect(files.map((f) => f.split("/").pop())).toEqual(expect.arrayContaining(["ask-user-bridge.sqlite"]));
      const stored = files.map((file) => ({ file, bytes: readFileSync(file).toString("latin1") + readFileSync(file).toString("utf8") }));
      const logs = sys.logs();
      expect(logs.map((l) => l.name)).toEqual(expect.arrayContaining(["gateway", "telegram bot", "discord bot", "slack bot"]));

      const leaks: string[] = [];
      for (const { where, value } of secrets) {
        for (const needle of needles(value)) {
          if (events.includes(needle)) leaks.push(`${where}: in an event`);
          if (records.includes(needle)) leaks.push(`${where}: in a record`);
          for (const { file, bytes } of stored) if (bytes.includes(needle)) leaks.push(`${where}: in ${file}`);
          for (const { name, output } of logs) if (output.includes(needle)) leaks.push(`${where}: in the ${name}'s log`);
        }
      }
      expect(leaks).toEqual([]);
      const storeBytes = files.reduce((n, file) => n + statSync(file).size, 0);
      const logBytes = logs.reduce((n, l) => n + l.output.length, 0);
      console.log(
        `[security] ${secrets.length} secrets (${secrets.reduce((n, s) => n + needles(s.value).length, 0)} needles) searched in ${agent.events.length} events, ` +
          `${files.length} store files (${storeBytes} bytes: ${files.map((f) => f.split("/").pop()).join(", ")}) and ${logs.length} process logs (${logBytes} bytes): 0 found`,
      );
    });
  });
});

/** Opens a WebSocket with these headers (and subprotocols); reports a refused upgrade's status instead of throwing. */
async function openWs(url: string, headers: Record<string, string>, protocols?: string[]) {
  const socket = new WebSocket(url, protocols ?? [], { headers });
  const events: unknown[] = [];
  const raw: string[] = [];
  const responses = new Map<string, any>();
  let nextId = 1;
  const refused = await new Promise<number | undefined>((resolve, reject) => {
    socket.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode);
      socket.terminate();
    });
    socket.once("open", () => resolve(undefined));
    socket.once("error", (error) => reject(error));
  });
  socket.on("message", (data: RawData) => {
    raw.push(data.toString());
    const frame = JSON.parse(data.toString());
    if (frame.type === "event") events.push(frame);
    else if (frame.type === "res") responses.set(String(frame.id), frame);
  });
  const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
  return {
    refused,
    events,
    raw,
    closed,
    async call(method: string, params: unknown): Promise<any> {
      const id = `r${nextId++}`;
      socket.send(JSON.stringify({ type: "req", id, method, params }));
      return until(() => responses.get(id), `the response to ${method}`, 10_000, 10);
    },
    close: () => socket.terminate(),
  };
}
