/** The delivery scenarios' kit for e-mail: the real bot and the fake SMTP server, which fails or refuses on demand. */
import { startEmailBot } from "../../../bots/email/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { freePort, TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import type { DeliveryKit } from "../../scenarios/delivery-kits.ts";
import { BOT_ADDRESS, startFakeSmtp, type FakeMail } from "./fake-api.ts";

export async function emailDeliveryKit(): Promise<DeliveryKit> {
  const smtp = await startFakeSmtp();
  const chats: [string, string] = ["ops1@example.com", "ops2@example.com"];
  const refusingChat = "nobody@example.com";
  smtp.refuse(refusingChat);
  const promptTo = (chat: string) => (m: FakeMail) => m.to === chat && m.inReplyTo === undefined;
  /** No edits: the one mail that updates a copy is the late answer taken, in reply to the prompt (what the suite counts). */
  const updateIn = (chat: string) => (m: FakeMail) => m.to === chat && m.inReplyTo !== undefined && !/^⏰/u.test(m.text);
  // A passing failure, as a relay says it when its upstream failed (the suite asks for HTTP-style 5xx by number).
  const fail = (match: (m: FakeMail) => boolean, status: number) => smtp.fail(match, 451, `4.3.0 Temporary failure: upstream answered ${status} Bad Gateway`);
  const gateway = await startHarnessGateway();
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    EMAIL_SMTP_URL: smtp.url,
    EMAIL_FROM: BOT_ADDRESS,
    EMAIL_INBOUND_HOST: "127.0.0.1",
    EMAIL_INBOUND_PORT: String(await freePort()),
  });
  const lifecycle = await startPlatformLifecycle(gateway, () => startEmailBot(config, { log: () => {} }), [smtp]);
  return {
    ...lifecycle,
    surface: "email",
    summaries: false,
    chats,
    refusingChat,
    failSendsTo: (chat, status) => fail(promptTo(chat), status),
    acceptedSends: (chat) => smtp.mails.filter(promptTo(chat)).length,
    editCalls: () => smtp.attempts.filter((a) => a.mail && chats.some((chat) => updateIn(chat)(a.mail!))).length,
    failEditsIn: (chat, status) => fail(updateIn(chat), status),
  };
}
