/** `ask-user-bridge bot email` as ops run it: the CLI process, a real gateway, the fake SMTP server, replies to its listener. */
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, rpcOk, spawnCli, startTestGateway, TOKEN, waitForOutput } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { BOT_ADDRESS, createMailClient, SMTP_PASS, startFakeSmtp } from "./fake-api.ts";

const single = { id: "deploy_target", header: "Deployment target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };

describe("the e-mail bot process", { timeout: 60_000 }, () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it("starts from its variables, mails the prompt, takes a reply on its listener, and never logs the SMTP password", async () => {
    const gateway = await startTestGateway();
    closers.push(() => gateway.close());
    const smtp = await startFakeSmtp();
    closers.push(() => smtp.close());
    const port = await freePort();
    const bot = spawnCli(["bot", "email"], {
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: TOKEN,
      EMAIL_SMTP_URL: smtp.url,
      EMAIL_FROM: `Ask bot <${BOT_ADDRESS}>`,
      EMAIL_INBOUND_HOST: "127.0.0.1",
      EMAIL_INBOUND_PORT: String(port),
    }, { timeoutMs: 60_000 });
    closers.push(async () => {
      if (bot.child.exitCode === null) bot.child.kill("SIGTERM");
      await bot.exited;
    });
    await waitForOutput(bot, /SMTP listener on port/u);
    const { id } = await rpcOk(gateway.url, "question.request", { questions: [single], targets: [{ surface: "email", chat: "ada@example.com" }] });
    const prompt = await waitUntil(() => smtp.mailsTo("ada@example.com")[0], "the prompt mail");
    expect(prompt.text).toContain("1. Staging");
    // A send the server refuses for a while is retried, and its error (which names the server) shows no password.
    smtp.fail(() => true, 451, "4.3.0 Try again later", true);
    const second = await rpcOk(gateway.url, "question.request", { questions: [single], targets: [{ surface: "email", chat: "grace@example.com" }] });
    await waitUntil(() => smtp.mailsTo("grace@example.com")[0], "the second prompt, after a retry", 15_000);
    await createMailClient(() => port).compose({ id: "ada@example.com", name: "Ada" }, "2", { replyTo: prompt }).send();
    expect(await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    expect(bot.stdout() + bot.stderr()).toMatch(/451 4\.3\.0 Try again later/u);
    expect(bot.stdout() + bot.stderr()).not.toContain(SMTP_PASS);
    await rpcOk(gateway.url, "question.resolve", { id: second.id, cancel: true, reason: "cancelled" });
  });

  it("a taken listener port names EMAIL_INBOUND_PORT instead of hanging", async () => {
    const gateway = await startTestGateway({ STORE: "memory" });
    closers.push(() => gateway.close());
    const occupier = createServer().listen(0, "127.0.0.1");
    await once(occupier, "listening");
    closers.push(async () => void occupier.close());
    const { port } = occupier.address() as AddressInfo;
    const run = spawnCli(["bot", "email"], {
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: TOKEN,
      EMAIL_SMTP_URL: "smtp://bot:secret-not-real@127.0.0.1:1",
      EMAIL_FROM: BOT_ADDRESS,
      EMAIL_INBOUND_HOST: "127.0.0.1",
      EMAIL_INBOUND_PORT: String(port),
    }, { timeoutMs: 30_000 });
    const { code, stderr } = await run.exited;
    expect(stderr.trim().split("\n").at(-1)).toBe(`port ${port} is in use: set EMAIL_INBOUND_PORT or stop the other process`);
    expect(code).toBe(1);
  });

  it("refuses to start without EMAIL_FROM, naming it", async () => {
    const run = spawnCli(["bot", "email"], { EMAIL_SMTP_URL: "smtp://bot:secret-not-real@127.0.0.1:1", GATEWAY_TOKEN: TOKEN }, { timeoutMs: 30_000 });
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(run.stderr()).toMatch(/EMAIL_FROM/u);
    expect(run.stdout() + run.stderr()).not.toContain("secret-not-real");
  });
});
