/**
 * Issue 37 §6 against the real `ask-user-bridge bot email` process and a real gateway: EMAIL_INBOUND_AUTH guessed over
 * raw SMTP as fast as the listener answers (the 200 tries at 10/s), now backed off per client address, a right
 * login still let in; STARTTLS with EMAIL_INBOUND_TLS_CERT/KEY, and no cleartext AUTH off the loopback.
 */
import nodemailer from "nodemailer";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, rpcOk, spawnCli, startTestGateway, TOKEN, waitForOutput, type CliRun } from "../../helpers/gateway.ts";
import { BOT_ADDRESS, startFakeSmtp, type FakeMail } from "./fake-api.ts";
import { authPlain, guessLogins, openSmtp } from "./smtp-guesser.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { selfSignedCertificate } from "./tls-fixture.ts";

const single = { id: "deploy_target", header: "Deployment target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };
const RELAY = { user: "relay", pass: "relay-pass-not-real" };

describe("the e-mail listener's AUTH, in the bot process", { timeout: 90_000 }, () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  async function startBot(env: Record<string, string>) {
    const gateway = await startTestGateway({ STORE: "memory" });
    closers.push(() => gateway.close());
    const smtp = await startFakeSmtp();
    closers.push(() => smtp.close());
    const port = await freePort();
    const bot = spawnCli(["bot", "email"], {
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: TOKEN,
      EMAIL_SMTP_URL: smtp.url,
      EMAIL_FROM: `Ask bot <${BOT_ADDRESS}>`,
      EMAIL_INBOUND_PORT: String(port),
      EMAIL_INBOUND_AUTH: `${RELAY.user}:${RELAY.pass}`,
      ...env,
    }, { timeoutMs: 90_000 });
    closers.push(async () => {
      if (bot.child.exitCode === null) bot.child.kill("SIGTERM");
      await bot.exited;
    });
    return { gateway, smtp, port, bot };
  }

  /** A question mailed to ada, and the relay's reply to it choosing Production. */
  async function askAda(gatewayUrl: string, smtp: Awaited<ReturnType<typeof startFakeSmtp>>) {
    const { id } = await rpcOk(gatewayUrl, "question.request", { questions: [single], targets: [{ surface: "email", chat: "ada@example.com" }] });
    const prompt: FakeMail = await waitUntil(() => smtp.mailsTo("ada@example.com").find((m) => m.questionId === id), "the prompt mail");
    const reply = { from: "ada@example.com", to: BOT_ADDRESS, subject: `Re: ${prompt.subject}`, text: "2", inReplyTo: prompt.id, references: [prompt.id] };
    return { id, reply };
  }

  const logs = (bot: CliRun) => bot.stdout() + bot.stderr();

  it("backs off a guesser of EMAIL_INBOUND_AUTH per address, and still lets the relay in", async () => {
    // GATEWAY_HOST no longer moves the listener off the loopback: unset, EMAIL_INBOUND_HOST is 127.0.0.1.
    const { gateway, smtp, port, bot } = await startBot({ GATEWAY_HOST: "0.0.0.0" });
    await waitForOutput(bot, /SMTP listener on port \d+ \(127\.0\.0\.1\)/u);

    // The attack: AUTH PLAIN guesses on 10 connections at once, for 5 s. Before the fix the listener answered every one
    // at once (9,061 answers in 5 s, all 535, measured with this very guesser); now 5 go through, then each next waits
    // out a lockout of 1 s, 2 s, 4 s … after the one before it, whichever connection it comes on.
    const answers = await guessLogins({ port, user: RELAY.user, connections: 10, ms: 5_000 });
    expect(answers.length).toBeGreaterThanOrEqual(6);
    expect(answers.length).toBeLessThanOrEqual(7);
    expect(answers.slice(0, 4).every((a) => a.startsWith("535"))).toBe(true);
    expect(answers[4]).toMatch(/^421 .*Too many failed logins from this address; try again in 1 s/u);
    expect(logs(bot)).toMatch(/refused SMTP AUTH as .{0,4}relay.{0,4} from 127\.0\.0\.1 \(too many wrong logins: its next waits 1 s\)/u);

    // The relay, from another address, is not slowed by the guesser's lockout.
    const first = await askAda(gateway.url, smtp);
    const relay = (localAddress: string) => nodemailer.createTransport({ host: "127.0.0.1", port, localAddress, secure: false, ignoreTLS: true, auth: RELAY });
    const other = relay("127.0.0.2");
    const started = Date.now();
    await other.sendMail(first.reply);
    other.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await rpcOk(gateway.url, "question.waitAnswer", { id: first.id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });

    // A right login from the guesser's own address, still locked out, is never refused: it waits its turn and is let in.
    const second = await askAda(gateway.url, smtp);
    const same = relay("127.0.0.1");
    await same.sendMail(second.reply);
    same.close();
    expect(await rpcOk(gateway.url, "question.waitAnswer", { id: second.id, timeoutMs: 8_000 })).toMatchObject({ status: "answered" });
    expect(logs(bot)).not.toContain(RELAY.pass);
  });

  it("off the loopback with a certificate: STARTTLS, and AUTH only after it", async () => {
    const tls = selfSignedCertificate();
    const { gateway, smtp, port, bot } = await startBot({ EMAIL_INBOUND_HOST: "0.0.0.0", EMAIL_INBOUND_TLS_CERT: tls.cert, EMAIL_INBOUND_TLS_KEY: tls.key });
    await waitForOutput(bot, /SMTP listener on port \d+ \(0\.0\.0\.0, STARTTLS\)/u);

    const raw = openSmtp(port);
    expect(await raw.reply()).toMatch(/^220 /u);
    expect(await raw.send("EHLO relay.example")).toMatch(/^250 /u);
    expect(await raw.send(authPlain(RELAY.user, RELAY.pass))).toMatch(/^538 .*STARTTLS/u);
    raw.close();

    const { id, reply } = await askAda(gateway.url, smtp);
    const relay = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, requireTLS: true, tls: { ca: tls.pem, servername: "localhost" }, auth: RELAY });
    await relay.sendMail(reply);
    relay.close();
    expect(await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
  });

  it("off the loopback with neither a certificate nor EMAIL_INBOUND_ALLOW_PLAIN_AUTH, refuses to start, saying why", async () => {
    const { bot } = await startBot({ EMAIL_INBOUND_HOST: "0.0.0.0" });
    const { code, stderr } = await bot.exited;
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/EMAIL_INBOUND_AUTH: the listener binds 0\.0\.0\.0, off the loopback.*EMAIL_INBOUND_TLS_CERT and EMAIL_INBOUND_TLS_KEY.*EMAIL_INBOUND_ALLOW_PLAIN_AUTH=true/u);
    expect(stderr).not.toContain(RELAY.pass);
  });

  it("off the loopback with EMAIL_INBOUND_ALLOW_PLAIN_AUTH=true, takes AUTH in cleartext", async () => {
    const { port, bot } = await startBot({ EMAIL_INBOUND_HOST: "0.0.0.0", EMAIL_INBOUND_ALLOW_PLAIN_AUTH: "true" });
    await waitForOutput(bot, /SMTP listener on port \d+ \(0\.0\.0\.0\)/u);
    const raw = openSmtp(port);
    expect(await raw.reply()).toMatch(/^220 /u);
    expect(await raw.send("EHLO relay.example")).toMatch(/^250 /u);
    expect(await raw.send(authPlain(RELAY.user, RELAY.pass))).toMatch(/^235 /u);
    raw.close();
  });
});
