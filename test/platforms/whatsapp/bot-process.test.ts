/** `ask-user-bridge bot whatsapp` as ops run it: the compiled CLI, a real gateway, the fake Graph API and its webhook sender. */
import { afterAll, describe, expect, it } from "vitest";
import { rpcOk } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { startWhatsAppBotProcess } from "./bot-process-kit.ts";
import { WA } from "./harness.ts";

const single = { id: "deploy_target", header: "Deployment target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };

describe("the WhatsApp bot process", { timeout: 60_000 }, () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it("starts from its variables, answers Meta's handshake, sends the list, and takes a selection through its signed webhook", async () => {
    const bot = await startWhatsAppBotProcess();
    closers.push(() => bot.close());
    const { gateway, fake } = bot;
    const handshake = await fetch(`${bot.webhookUrl}?hub.mode=subscribe&hub.verify_token=${WA.verifyToken}&hub.challenge=42`);
    expect(await handshake.text()).toBe("42");
    const { id } = await rpcOk(gateway.url, "question.request", { questions: [single], targets: [{ surface: "whatsapp", chat: "15550003001" }] });
    const list = await waitUntil(() => fake.botMessages("15550003001").find((m) => m.type === "interactive"), "the list message");
    expect(list.rows.map((r) => r.title)).toEqual(["Staging", "Production", "Other…", "Skip"]);
    await fake.select("15550003001", "Ada", list, 1);
    expect(await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    expect(bot.output()).not.toContain(WA.accessToken);
  });
});
