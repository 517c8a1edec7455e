/** `ask-user-bridge bot whatsapp` as ops run it (the compiled CLI), with a real gateway and the fake Graph API. */
import { freePort, spawnCli, startTestGateway, TOKEN, waitForOutput, type TestGateway } from "../../helpers/gateway.ts";
import { startFakeWhatsApp, type FakeWhatsApp } from "./fake-api.ts";
import { WA, whatsappBotEnv } from "./harness.ts";

export interface WhatsAppBotProcess {
  gateway: TestGateway;
  fake: FakeWhatsApp;
  /** Where the bot takes Meta's webhook. */
  webhookUrl: string;
  /** The bot's output so far (stdout and stderr). */
  output(): string;
  close(): Promise<void>;
}

export async function startWhatsAppBotProcess(
  { env = {}, gateway: overrides = {} }: { env?: Record<string, string>; gateway?: Parameters<typeof startTestGateway>[0] } = {},
): Promise<WhatsAppBotProcess> {
  const gateway = await startTestGateway(overrides);
  const fake = await startFakeWhatsApp(WA);
  const port = await freePort();
  fake.setWebhook(`http://127.0.0.1:${port}/webhook`);
  const bot = spawnCli(["bot", "whatsapp"], {
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    ...whatsappBotEnv(fake.apiRoot, port),
    ...env,
  }, { timeoutMs: 120_000 });
  await waitForOutput(bot, /webhook on port/u);
  return {
    gateway,
    fake,
    webhookUrl: `http://127.0.0.1:${port}/webhook`,
    output: () => bot.stdout() + bot.stderr(),
    async close() {
      if (bot.child.exitCode === null) bot.child.kill("SIGTERM");
      await bot.exited;
      await fake.close();
      await gateway.close();
    },
  };
}
