/**
 * The e-mail harness: the real bot (bots/email) sending through nodemailer to the fake SMTP server, and taking
 * replies on its real SMTP listener from the people's mail clients (./fake-api.ts), connected to a real gateway in
 * this process. Every chat is one person's address; a mail has no buttons, cannot be edited or deleted, and resolution
 * sends no mail: the harness declares that (`capabilities`). A press is a reply with the option's number (Skip:
 * `skip`), resolving to the bot's reply to it; a copy's current state (`copy`) is the latest mail the bot sent in
 * reply to the prompt to update it (the late answer taken), and `sentCopy` the prompt as sent.
 */
import { startEmailBot } from "../../../bots/email/index.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { toEmailText } from "../../../src/platforms/email/escaping.ts";
import { freePort, rpcOk, TOKEN } from "../../helpers/gateway.ts";
import { startHarnessGateway, startPlatformLifecycle } from "../../helpers/platform-harness.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import type { BotHarness, Person, PromptCopy } from "../../scenarios/harness.ts";
import { BOT_ADDRESS, createMailClient, startFakeSmtp, type FakeMail, type FakeSmtp, type PersonMail, type ReplyOptions } from "./fake-api.ts";

export interface EmailHarness extends BotHarness {
  smtp: FakeSmtp;
  /** The people's mail clients, sending to the bot's listener. */
  client: ReturnType<typeof createMailClient>;
  inboundPort: number;
  /** What the bot logged. */
  logs: string[];
  /** Sends a reply as `who` and resolves to the bot's answer to it (undefined when none comes in 3 s). */
  replyAs(who: Person, text: string, options?: ReplyOptions): Promise<FakeMail | undefined>;
}

export interface EmailHarnessOptions {
  env?: Record<string, string>;
}

const REMINDER = /^⏰/u;
export const PEOPLE = {
  person: { id: "ada@example.com", name: "Ada" },
  colleague: { id: "grace@example.com", name: "Grace" },
  stranger: { id: "mallory@example.net", name: "Mallory" },
};

const isPrompt = (m: FakeMail) => m.inReplyTo === undefined;

export async function createEmailHarness(options: EmailHarnessOptions = {}): Promise<EmailHarness> {
  const smtp = await startFakeSmtp();
  const gateway = await startHarnessGateway("aub-email-");
  const inboundPort = await freePort();
  const config = loadConfig({
    GATEWAY_URL: gateway.url,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: gateway.dataDir,
    EMAIL_SMTP_URL: smtp.url,
    EMAIL_FROM: `Ask bot <${BOT_ADDRESS}>`,
    EMAIL_INBOUND_HOST: "127.0.0.1",
    EMAIL_INBOUND_PORT: String(inboundPort),
    EMAIL_ALLOWED_SENDERS: `${PEOPLE.person.id},${PEOPLE.colleague.id}`,
    ...options.env,
  });
  const logs: string[] = [];
  const log = (message: string, error?: unknown) => void logs.push(error instanceof Error ? `${message}: ${error.message}` : message);
  const lifecycle = await startPlatformLifecycle(gateway, () => startEmailBot(config, { log }), [smtp]);
  const client = createMailClient(() => inboundPort);

  const mail = (chat: string, ref: string): FakeMail => {
    const found = smtp.byId(ref);
    if (!found || found.to !== chat) throw new Error(`no mail ${ref} to ${chat}`);
    return found;
  };
  const asCopy = (chat: string, m: FakeMail): PromptCopy => ({ chat, ref: m.id, text: m.text, buttons: [] });
  /** The bot's mails that update a copy (in reply to the prompt, not a reminder): the late answer taken. */
  const updatesOf = (chat: string, ref: string) => smtp.mailsTo(chat).filter((m) => m.inReplyTo === ref && !REMINDER.test(m.text));
  const own = (chat: string, who: Person) => {
    if (chat !== who.id) throw new Error(`e-mail has no group chats: only ${chat} writes from ${chat}, not ${who.id}`);
  };
  /** A mail the bot sent (the prompt as sent, a reminder, a confirmation), found by its id in any mailbox. */
  const sentMail = (ref: string) => smtp.byId(ref);
  /** The copy's prompt as sent: the mail the person replies to. */
  const promptMail = (copy: PromptCopy) => sentMail(copy.ref) ?? mail(copy.chat, copy.ref);

  async function replyAs(who: Person, text: string, replyOptions: ReplyOptions = {}): Promise<FakeMail | undefined> {
    const sent = client.compose(who, text, replyOptions);
    await sent.send();
    return answerTo(who, sent);
  }
  const answerTo = (who: Person, sent: PersonMail) =>
    waitUntil(() => smtp.mailsTo(who.id).find((m) => m.inReplyTo === sent.messageId), "the bot's answer to the mail", 3_000).catch(() => undefined);

  /** A press: a reply to the copy with the option's number, or `skip` (the last control). */
  async function press(copy: PromptCopy, index: number, who: Person): Promise<string | undefined> {
    const prompt = promptMail(copy);
    const options = prompt.text.split("\n").filter((line) => /^\d+\. /u.test(line)).length;
    if (index === options) throw new Error("e-mail has no Other… to press: give own words with answerOther");
    const text = index < options ? String(index + 1) : "skip";
    return (await replyAs(who, text, { replyTo: prompt }))?.text;
  }

  const harness: EmailHarness = {
    ...lifecycle,
    smtp,
    client,
    inboundPort,
    logs,
    replyAs,
    surface: "email",
    capabilities: { edits: false, groups: false, deletesMessages: false, deletesOwnMessages: false, marksMessages: false, buttons: false, summaries: false, repliesOnly: true },
    chat: PEOPLE.person.id,
    otherChat: PEOPLE.colleague.id,
    ...PEOPLE,
    copy(chat, ref) {
      const latest = updatesOf(chat, ref).at(-1);
      return { ...asCopy(chat, latest ?? mail(chat, ref)), ref };
    },
    sentCopy: (chat, ref) => asCopy(chat, mail(chat, ref)),
    press,
    async pressForged(copy, forged, who) {
      if (forged === "garbage") return (await replyAs(who, "1", { inReplyTo: "<not-a-message-of-ours@elsewhere.example>" }))?.text;
      const record = await rpcOk(gateway.url, "question.get", { id: forged.questionId }).catch(() => undefined);
      const delivery = (record?.deliveries as Array<{ surface: string; chat: string; messageRef: string }> | undefined)?.find((d) => d.surface === "email");
      // No such question: a reply to an id in the bot's shape that the bot never made (its signature does not hold).
      if (!delivery) return (await replyAs(who, "1", { inReplyTo: `<aub.p.${"0".repeat(24)}.${"0".repeat(24)}@bridge.example>` }))?.text;
      const prompt = sentMail(delivery.messageRef)!;
      // Another person's question: a reply to their mail, from this person's address.
      if (delivery.chat !== who.id) return (await replyAs(who, String(forged.optionIndex + 1), { replyTo: prompt }))?.text;
      // This person's own question: what a forger controls in a mail is the thread, so its reference is tampered with.
      const tampered = prompt.id.replace(/([0-9a-f])@/u, (_, c: string) => `${c === "0" ? "1" : "0"}@`);
      return (await replyAs(who, String(forged.optionIndex + 1), { inReplyTo: tampered, references: [tampered] }))?.text;
    },
    async answerOther(copy, who, text) {
      await replyAs(who, text, { replyTo: promptMail(copy) });
    },
    async openOther(copy, who) {
      // Nothing to open: own words are a reply in them.
      return async (text) => void (await replyAs(who, text, { replyTo: promptMail(copy) }));
    },
    async type(chat, who, text, typeOptions = {}) {
      own(chat, who);
      const replyTo = typeOptions.replyTo ? (sentMail(typeOptions.replyTo.ref) ?? mail(chat, typeOptions.replyTo.ref)) : undefined;
      const sent = client.compose(who, text, replyTo ? { replyTo } : {});
      await sent.send();
      return { deleted: () => false, reactions: () => [], redeliver: () => sent.send() };
    },
    holdNextPrompt(chat) {
      const held = smtp.holdNext((m) => m.to === chat && isPrompt(m));
      return { release: held.release, posted: async () => asCopy(chat, await held.whenArrived) };
    },
    platformText: toEmailText,
    repliesTo(copy) {
      return smtp
        .mailsTo(copy.chat)
        .filter((m) => m.inReplyTo === copy.ref && REMINDER.test(m.text))
        .map((m) => ({ ...asCopy(copy.chat, m), deleted: false, pings: false }));
    },
    latestReply(chat) {
      return asCopy(chat, smtp.mailsTo(chat).filter((m) => !isPrompt(m)).at(-1)!);
    },
    refuseDeletingOwn() {}, // a sent mail is never deleted
    forbidDeleting() {}, // nor the person's
    botReplies: (chat) => smtp.mailsTo(chat).filter((m) => !isPrompt(m)).map((m) => m.text),
    privateNotices: () => [],
    promptSends: (questionId) => smtp.mails.filter((m) => isPrompt(m) && m.questionId === questionId).length,
    rateLimitNextSend() {
      smtp.fail(isPrompt, 451, "4.7.0 Too many messages, slow down", true);
    },
  };
  return harness;
}
