/** `ask-user-bridge bot whatsapp` as ops run it: the compiled CLI, a real gateway, the fake Graph API and its webhook sender. */
import { afterAll, describe, expect, it } from "vitest";
import { freePort, rpcOk, spawnCli, startTestGateway, TOKEN, waitForOutput } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { startFakeWhatsApp } from "./graph-api.ts";
import { WA } from "./harness.ts";

const single = { id: "deploy_target", header: "Deployment target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };

describe("the WhatsApp bot process", { timeout: 60_000 }, () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it("starts from its variables, answers Meta's handshake, sends the list, and takes a selection through its signed webhook", async () => {
    const gateway = await startTestGateway();
    closers.push(() => gateway.close());
    const fake = await startFakeWhatsApp(WA);
    closers.push(() => fake.close());
    const port = await freePort();
    fake.setWebhook(`http://127.0.0.1:${port}/webhook`);
    const bot = spawnCli(["bot", "whatsapp"], {
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: TOKEN,
      WHATSAPP_ACCESS_TOKEN: WA.accessToken,
      WHATSAPP_PHONE_NUMBER_ID: WA.phoneNumberId,
      WHATSAPP_APP_SECRET: WA.appSecret,
      WHATSAPP_VERIFY_TOKEN: WA.verifyToken,
      WHATSAPP_API_ROOT: fake.apiRoot,
      WHATSAPP_WEBHOOK_HOST: "127.0.0.1",
      WHATSAPP_WEBHOOK_PORT: String(port),
    }, { timeoutMs: 60_000 });
    closers.push(async () => {
      if (bot.child.exitCode === null) bot.child.kill("SIGTERM");
      await bot.exited;
    });
    await waitForOutput(bot, /webhook on port/u);
    const handshake = await fetch(`http://127.0.0.1:${port}/webhook?hub.mode=subscribe&hub.verify_token=${WA.verifyToken}&hub.challenge=42`);
    expect(await handshake.text()).toBe("42");
    const { id } = await rpcOk(gateway.url, "question.request", { questions: [single], targets: [{ surface: "whatsapp", chat: "15550003001" }] });
    const list = await waitUntil(() => fake.botMessages("15550003001").find((m) => m.type === "interactive"), "the list message");
    expect(list.rows.map((r) => r.title)).toEqual(["Staging", "Production", "Other…", "Skip"]);
    await fake.select("15550003001", "Ada", list, 1);
    expect(await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    expect(bot.stdout() + bot.stderr()).not.toContain(WA.accessToken);
  });
});
