import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, rpcOk, sleep } from "../helpers/gateway.ts";
import { quietPeriod, scenarioTools, skipAhead, waitUntil } from "./tools.ts";
import { capabilitiesOf, pressTold, type BotHarness, type Person, type PromptCopy } from "./harness.ts";

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
};
const multi = { id: "checks", header: "Checks", question: "Which checks should run?", multiSelect: true, options: [{ label: "Lint" }, { label: "Unit" }, { label: "E2E" }] };
const region = { id: "region", header: "Region", question: "Which region?", options: [{ label: "EU" }, { label: "US" }] };

/**
 * The cross-platform scenario suite (issue 5): every bot runs these against its own fake platform server,
 * with the real gateway and the real framework.
 */
export function runBotScenarios(name: string, makeHarness: () => Promise<BotHarness>) {
  describe(`${name}: cross-platform scenarios`, () => {
    let h: BotHarness;
    beforeAll(async () => {
      h = await makeHarness();
    }, 60_000);
    afterAll(async () => {
      await h?.close();
    });

    const ask = async (questions: unknown[], extra: Record<string, unknown> = {}, chat?: string, users?: string[]) => {
      const target = { surface: h.surface, chat: chat ?? h.chat, ...(users ? { users } : {}) };
      const { id } = await rpcOk(h.gatewayUrl(), "question.request", { questions, targets: [target], ...extra });
      return id as string;
    };
    const { promptOf, result, status, summaryOf, lateOpenOf } = scenarioTools(() => h);
    /** What the platform can do (its harness declares what it cannot). */
    const can = () => capabilitiesOf(h);
    /** What a press of option `n` tells the presser (a toast, or the typed reply's confirmation without buttons). */
    const submitted = (label: string, n: number) => pressTold(can(), label, n);
    /** The controls a copy of `single` has: its buttons, or none on a platform without them. */
    const singleButtons = () => (can().buttons ? ["Staging (Recommended)", "Production", "Other…", "Skip"] : []);
    /** Someone else in the scenario chat: a colleague in a group; where every chat is one person's, that person. */
    const alsoInChat = () => (can().groups ? h.colleague : h.person);
    /** The first bot reply in the chat matching `pattern`, among those after the first `after`. */
    const replyMatching = (chat: string, pattern: RegExp, after = 0) =>
      waitUntil(() => h.botReplies(chat).slice(after).find((t) => pattern.test(t)), `a bot reply matching ${pattern}`);
    /** A bot reply in the chat, or a private notice to the person where the platform has them. */
    const toldMatching = (chat: string, who: Person, pattern: RegExp) =>
      waitUntil(() => [...h.botReplies(chat), ...h.privateNotices(who)].find((t) => pattern.test(t)), `a message matching ${pattern}`);

    it("sends one full-width button per option, then Other… and Skip, with descriptions in the text", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      expect(copy.buttons).toEqual(singleButtons());
      expect(copy.text).toContain("Where should I deploy?");
      expect(copy.text).toContain("safe to try");
      if (!can().buttons) {
        // No buttons: numbered text, with how to answer by typing and how to skip.
        expect(copy.text).toMatch(/^1\. Staging \(Recommended\) - safe to try$/mu);
        expect(copy.text).toMatch(/^2\. Production$/mu);
        expect(copy.text).toMatch(/reply with a number, a label,? or your own words/iu);
        expect(copy.text).toMatch(/Reply skip to skip\./u);
      }
      // The scenario chat is a group: the prompt says a typed answer counts only as a reply (in the thread, on Slack; either
      // in a Matrix room).
      // Where every chat is one person's (no groups), it is a direct message, and needs no such line.
      if (can().groups) expect(copy.text).toMatch(/In this (group|channel|room), a typed answer counts only (as a reply to this message( or in its thread)?|in this message.s thread)\./u);
      else expect(copy.text).not.toMatch(/In this (group|channel|room)/u);
      await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
    });

    it("a tap answers, the toast confirms, and the copy becomes the summary", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      expect(await h.press(copy, 1, h.person)).toBe(submitted("Production", 2));
      expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
      const summary = await summaryOf(copy, /✅ Deployment t: Production/);
      expect(summary.text).toContain(h.person.name);
    });

    it("Other… then own words answers with the person's text", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      await h.answerOther(copy, h.person, "Canary in eu-west first");
      expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Canary in eu-west first"] } } });
      await summaryOf(copy, /Canary in eu-west first/);
    });

    it("Skip gives no_answer / skipped", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      await h.press(copy, 3, h.person);
      expect(await result(id)).toEqual({ status: "no_answer", reason: "skipped" });
      await summaryOf(copy, /⏭ Skipped/);
    });

    it.each([
      ["2", "Production", /Recorded: Production \(option 2\)/],
      ["staging", "Staging (Recommended)", /Recorded: Staging \(Recommended\) \(option 1\)/],
      ["Blue-green, please", "Blue-green, please", /Recorded: “Blue-green, please” \(your own words\)/],
    ])("a typed %j on a single question reads as %j and is confirmed", async (text, value, confirmation) => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      const before = h.botReplies(h.chat).length;
      await h.type(h.chat, h.person, text, { replyTo: copy });
      expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: [value] } } });
      await replyMatching(h.chat, confirmation, before);
    });

    it("multi-select by text, as numbered text without buttons", async () => {
      const id = await ask([multi]);
      const copy = await promptOf(id);
      expect(copy.buttons).toEqual([]);
      expect(copy.text).toMatch(/1\. Lint/);
      expect(copy.text).not.toMatch(/\btap\b|\bpress\b/i);
      await h.type(h.chat, h.person, "1, 3", { replyTo: copy });
      expect(await result(id)).toMatchObject({ answers: { answers: { checks: ["Lint", "E2E"] } } });
    });

    it("2 questions answered in one reply", async () => {
      const id = await ask([single, multi]);
      const copy = await promptOf(id);
      await h.type(h.chat, h.person, "1: 2\n2: lint, unit", { replyTo: copy });
      expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"], checks: ["Lint", "Unit"] } } });
    });

    it("3 questions answered in one reply (unkeyed lines in order)", async () => {
      const id = await ask([single, multi, region]);
      const copy = await promptOf(id);
      await h.type(h.chat, h.person, "staging\n2\nUS", { replyTo: copy });
      expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"], checks: ["Unit"], region: ["US"] } } });
    });

    it("a partial reply asks only for the rest, which then completes the answer", async () => {
      const id = await ask([single, multi, region]);
      const copy = await promptOf(id);
      const before = h.botReplies(h.chat).length;
      await h.type(h.chat, h.person, "1: Production", { replyTo: copy });
      const followUp = await replyMatching(h.chat, /Recorded so far/, before);
      expect(followUp).toContain("Which checks should run?");
      expect(followUp).not.toContain("Where should I deploy?");
      expect(await status(id)).toBe("pending");
      expect((await rpcOk(h.gatewayUrl(), "question.get", { id })).partialAnswers).toEqual({ deploy_target: ["Production"] });
      await h.type(h.chat, h.person, "e2e\nEU", { replyTo: copy });
      expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"], checks: ["E2E"], region: ["EU"] } } });
    });

    it("ids that are JavaScript property names (constructor, prototype, length, name): a tap, own words, and a partial reply", async () => {
      const byId = (id: string, multiSelect = false) => ({ id, header: id, question: `Which for ${id}?`, multiSelect, options: [{ label: "Yes" }, { label: "No" }] });
      const tapped = await ask([byId("constructor")]);
      const tappedCopy = await promptOf(tapped);
      expect(await h.press(tappedCopy, 1, h.person)).toBe(submitted("No", 2));
      expect(await result(tapped)).toMatchObject({ status: "answered", answers: { answers: { constructor: ["No"] } } });
      await summaryOf(tappedCopy, /No/);

      const own = await ask([byId("name")]);
      await h.answerOther(await promptOf(own), h.person, "Neither of them");
      expect(await result(own)).toMatchObject({ status: "answered", answers: { answers: { name: ["Neither of them"] } } });

      // The confirmation of a partial reply that leaves `constructor` open names what was read and asks for the rest.
      const id = await ask([byId("prototype"), byId("constructor"), byId("length", true)]);
      const copy = await promptOf(id);
      const before = h.botReplies(h.chat).length;
      await h.type(h.chat, h.person, "1: yes", { replyTo: copy });
      const followUp = await waitUntil(() => h.botReplies(h.chat).slice(before).find((t) => /Recorded so far/.test(t)), "the partial reply's confirmation");
      expect(followUp).toContain("prototype: Yes (option 1)");
      expect(followUp).toContain("Which for constructor?");
      expect(followUp).toContain("Which for length?");
      expect(followUp).not.toContain("Which for prototype?");
      expect((await rpcOk(h.gatewayUrl(), "question.get", { id })).partialAnswers).toEqual({ prototype: ["Yes"] });
      await h.type(h.chat, h.person, "no\nyes, no", { replyTo: copy });
      expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { prototype: ["Yes"], constructor: ["No"], length: ["Yes", "No"] } } });
    });

    it("someone not allowed is told so and nothing is recorded", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      if (!can().groups) {
        // No group chats: a stranger can reach the bot only from their own chat. What they send there (a typed
        // answer, a selection of the list) gets the refusal mark, and nothing is recorded or said.
        const typed = await h.type(h.stranger.id, h.stranger, "2");
        if (can().marksMessages) await waitUntil(() => typed.reactions().length > 0, "the mark on the stranger's message");
        expect(await h.press(copy, 0, h.stranger)).toBeUndefined();
        await quietPeriod();
        expect(await status(id)).toBe("pending");
        // A target's own user list narrows it further: the chat's own person is refused.
        const narrow = await ask([single], {}, h.chat, [h.colleague.id]);
        const narrowCopy = await promptOf(narrow);
        expect(await h.press(narrowCopy, 0, h.person)).toBe("This question is for someone else.");
        expect(await status(narrow)).toBe("pending");
        for (const q of [id, narrow]) await rpcOk(h.gatewayUrl(), "question.resolve", { id: q, cancel: true, reason: "cancelled" });
        return;
      }
      expect(await h.press(copy, 0, h.stranger)).toBe("This question is for someone else.");
      await h.type(h.chat, h.stranger, "2", { replyTo: copy });
      await quietPeriod();
      expect(await status(id)).toBe("pending");
      // A target's own user list narrows it further.
      const narrow = await ask([single], {}, h.chat, [h.colleague.id]);
      const narrowCopy = await promptOf(narrow);
      expect(await h.press(narrowCopy, 0, h.person)).toBe("This question is for someone else.");
      expect(await status(narrow)).toBe("pending");
      expect(await h.press(narrowCopy, 0, h.colleague)).toBe("Answer submitted.");
      await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
    });

    it("forged presses change nothing: garbage, an index out of range, another chat's question", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      const elsewhere = await ask([single], {}, h.otherChat);
      await promptOf(elsewhere, h.otherChat);
      await h.pressForged(copy, "garbage", h.person);
      await h.pressForged(copy, { questionId: id, optionIndex: 3 }, h.person);
      await h.pressForged(copy, { questionId: elsewhere, optionIndex: 0 }, h.person);
      await h.pressForged(copy, { questionId: "qdoesnotexist", optionIndex: 0 }, h.person);
      expect(await status(id)).toBe("pending");
      expect(await status(elsewhere)).toBe("pending");
      for (const q of [id, elsewhere]) await rpcOk(h.gatewayUrl(), "question.resolve", { id: q, cancel: true, reason: "cancelled" });
    });

    it("a stale tap after resolution is refused and changes nothing", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      await h.press(copy, 0, h.person);
      await result(id);
      expect(await h.press(copy, 1, alsoInChat())).toBe("This question was already answered.");
      expect((await result(id)).answers.answers.deploy_target).toEqual(["Staging (Recommended)"]);
    });

    it("resolution on another surface, and expiry, edit the copy", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      await rpcOk(h.gatewayUrl(), "question.resolve", { id, answers: { deploy_target: ["production"] }, by: { surface: "web", via: "web", user: "ops", userName: "Grace" } });
      await summaryOf(copy, /Production — answered on the web by Grace/);
      // Without a late window the expired copy is final; with one (LATE_ANSWER_SECONDS, 24 h by default) it says a
      // late answer still reaches the agent, and keeps its buttons.
      const short = await ask([single], { timeoutSeconds: 1, lateAnswerSeconds: 0 });
      const shortCopy = await promptOf(short);
      await skipAhead(h.clock, 1_000);
      const expired = await summaryOf(shortCopy, /⌛ No answer \(expired\)/);
      expect(expired.buttons).toEqual([]);
      const lateOpen = await ask([single], { timeoutSeconds: 1 });
      const lateCopy = await promptOf(lateOpen);
      await skipAhead(h.clock, 1_000);
      const open = await lateOpenOf(lateCopy);
      // No Skip on a late copy: a late skip would be refused (issue 30).
      expect(open.buttons).toEqual(can().buttons ? ["Staging (Recommended)", "Production", "Other…"] : []);
    });

    it("a credential is refused, not recorded, and deleted", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      const sent = await h.type(h.chat, h.person, "sk-live_abcdefghijklmnopqrstuvwx1234", { replyTo: copy });
      const note = await toldMatching(h.chat, h.person, /secrets flow/);
      if (can().deletesMessages) await waitUntil(() => sent.deleted(), "the credential message to be deleted");
      else {
        // The bot may not delete a person's message: it stays, and the person is told to delete it and rotate it.
        expect(note).toMatch(/still visible.*delete it.*rotate/su);
        expect(sent.deleted()).toBe(false);
      }
      expect(await status(id)).toBe("pending");
      const record = await rpcOk(h.gatewayUrl(), "question.get", { id });
      expect(JSON.stringify(record)).not.toContain("abcdefghijklmnop");
      await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
    });

    it("a bot restart with pending questions sends nothing twice, and old buttons still work", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      await h.restartBot();
      await quietPeriod();
      expect(h.promptSends(id)).toBe(1);
      expect(await h.press(copy, 1, h.person)).toBe(submitted("Production", 2));
      expect(await result(id)).toMatchObject({ status: "answered" });
      await summaryOf(copy, /Production/);
    });

    it("a rate limit on send is retried and the prompt still arrives", async () => {
      h.rateLimitNextSend(1);
      const id = await ask([single]);
      const copy = await promptOf(id);
      expect(copy.buttons).toEqual(singleButtons());
      expect(h.promptSends(id)).toBe(1);
      await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
    });

    it("survives a gateway restart: new questions arrive and answers go through", async () => {
      const before = await ask([single]);
      const beforeCopy = await promptOf(before);
      await h.restartGateway();
      const after = await ask([single]);
      const afterCopy = await promptOf(after);
      expect(await h.press(afterCopy, 0, h.person)).toBe(submitted("Staging (Recommended)", 1));
      expect(await h.press(beforeCopy, 1, h.person)).toBe(submitted("Production", 2));
      expect(await result(after)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
      expect(await result(before)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
      expect(h.promptSends(before)).toBe(1);
    });

    it("a typed reply with no pending question is left alone", async () => {
      const before = h.botReplies(h.otherChat).length;
      await h.type(h.otherChat, can().groups ? h.person : h.colleague, "hello everyone");
      await quietPeriod();
      expect(h.botReplies(h.otherChat).length).toBe(before);
    });

    const env = { id: "env", header: "Environment", question: "Which environment?", options: [{ label: "Staging" }, { label: "Production" }] };
    const db = { id: "db", header: "Database", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] };
    const hostile = "@everyone <!channel> <@123> **b** _i_ <b>x</b> [l](https://e.x) # h";
    const quiet = quietPeriod;

    it("a re-delivered reply is taken once: it answers neither the next question nor another one pending in the chat", async () => {
      const id = await ask([env, db]);
      const copy = await promptOf(id);
      const earlier = h.botReplies(h.chat).length;
      const sent = await h.type(h.chat, h.person, "env: production", { replyTo: copy });
      await waitUntil(() => h.botReplies(h.chat).slice(earlier).some((t) => /Recorded so far/.test(t)), "the partial answer's confirmation");
      const replies = h.botReplies(h.chat).length;
      await sent.redeliver();
      await quiet();
      expect(await rpcOk(h.gatewayUrl(), "question.get", { id })).toMatchObject({ status: "pending", partialAnswers: { env: ["Production"] } });
      expect(h.botReplies(h.chat).length).toBe(replies); // the bridge says nothing to a repeat

      // A message that answered a question (here from a user the target names, so no reply is needed) and comes again
      // once that question is closed must not answer the next question pending in the chat.
      const first = await ask([single], {}, h.chat, [h.person.id]);
      const firstCopy = await promptOf(first);
      const confirmed = h.botReplies(h.chat).length;
      // Where every answer must reply to one of the bot's messages, it replies to the prompt.
      const answer = await h.type(h.chat, h.person, "2", can().repliesOnly ? { replyTo: firstCopy } : {});
      expect(await result(first)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
      await waitUntil(() => h.botReplies(h.chat).slice(confirmed).some((t) => /Recorded: Production/.test(t)), "the confirmation");
      const second = await ask([single], {}, h.chat, [h.person.id]);
      await promptOf(second);
      const before = h.botReplies(h.chat).length;
      await answer.redeliver();
      await quiet();
      expect(await status(second)).toBe("pending");
      expect(h.botReplies(h.chat).length).toBe(before);
      for (const q of [id, second]) await rpcOk(h.gatewayUrl(), "question.resolve", { id: q, cancel: true, reason: "cancelled" });
    });

    it("in a group, chatter never answers: only a reply to the prompt, or a message from a user the target names", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      if (!can().groups) {
        // No group chats: nobody else writes in the person's chat, and a message in another chat answers nothing here.
        await h.type(h.otherChat, h.colleague, "2");
        await quiet();
        expect(await status(id)).toBe("pending");
        await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
        return;
      }
      const before = h.botReplies(h.chat).length;
      await h.type(h.chat, h.colleague, "anyone up for lunch?");
      await h.type(h.chat, h.person, "2");
      await quiet();
      expect(await status(id)).toBe("pending");
      expect(h.botReplies(h.chat).length).toBe(before);
      await h.type(h.chat, h.colleague, "2", { replyTo: copy });
      expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
      expect((await rpcOk(h.gatewayUrl(), "question.get", { id })).by).toMatchObject({ user: h.colleague.id });

      // A target that names its people: their plain messages count; anyone else's still don't.
      const named = await ask([single], {}, h.chat, [h.person.id]);
      await promptOf(named);
      await h.type(h.chat, h.colleague, "1");
      await quiet();
      expect(await status(named)).toBe("pending");
      await h.type(h.chat, h.person, "staging");
      expect(await result(named)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
    });

    it("after Other… in a group, nobody's chatter is the answer, not even the presser's: only their own words the platform's way", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      const giveWords = await h.openOther(copy, h.person);
      if (!can().groups) {
        // No group chats: the person's next message is their own words, even one that reads as an option number.
        await h.type(h.otherChat, h.colleague, "anyone up for lunch?");
        await quiet();
        expect(await status(id)).toBe("pending");
        if (!can().buttons) {
          // No Other… to press: own words are a reply in them (a number there is the option's).
          await giveWords("Canary first");
          expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Canary first"] } } });
          return;
        }
        await giveWords("2");
        expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["2"] } } });
        return;
      }
      await h.type(h.chat, h.colleague, "anyone up for lunch?");
      await h.type(h.chat, h.person, "brb, coffee");
      await quiet();
      expect(await status(id)).toBe("pending");
      await giveWords("Canary first");
      expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Canary first"] } } });
    });

    it("in a group, a reply to the bot's follow-up finishes the answer", async () => {
      const id = await ask([single, multi]);
      const copy = await promptOf(id);
      const before = h.botReplies(h.chat).length;
      await h.type(h.chat, h.person, "1: 2", { replyTo: copy });
      await replyMatching(h.chat, /Recorded so far/, before);
      await h.type(h.chat, h.person, "lint, e2e", { replyTo: h.latestReply(h.chat) });
      expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"], checks: ["Lint", "E2E"] } } });
    });

    it("a credential the bot may not delete: the person is told, privately where the platform can, that it is still visible, to delete it and rotate it", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      h.forbidDeleting(true);
      try {
        const [replies, notices] = [h.botReplies(h.chat).length, h.privateNotices(h.person).length];
        const sent = await h.type(h.chat, h.person, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", { replyTo: copy });
        const note = await waitUntil(
          () => [...h.botReplies(h.chat).slice(replies), ...h.privateNotices(h.person).slice(notices)].find((t) => /secrets flow/.test(t)),
          "the note about the credential",
        );
        expect(note).toMatch(/still visible/);
        expect(note).toMatch(/delete it/);
        expect(note).toMatch(/rotate/);
        expect(sent.deleted()).toBe(false);
        expect(await status(id)).toBe("pending");
      } finally {
        h.forbidDeleting(false);
      }
      await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
    });

    it("in a direct message, any message from the person answers", async () => {
      const id = await ask([single], {}, h.person.id);
      const copy = await promptOf(id, h.person.id);
      const before = h.botReplies(h.person.id).length;
      if (can().repliesOnly) {
        // Every answer replies to one of the bot's messages: a message that replies to none answers nothing, and
        // nothing is said to it; a reply to the prompt answers.
        await h.type(h.person.id, h.person, "2");
        await quietPeriod();
        expect(await status(id)).toBe("pending");
        expect(h.botReplies(h.person.id).length).toBe(before);
      }
      await h.type(h.person.id, h.person, "2", can().repliesOnly ? { replyTo: copy } : {});
      expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
      await replyMatching(h.person.id, /Recorded: Production/, before);
    });

    it("a stranger's typed reply in a group is marked, not answered in public, and records nothing", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      // No group chats: the stranger writes from their own chat, and is marked there.
      const where = can().groups ? h.chat : h.stranger.id;
      const before = h.botReplies(where).length;
      const sent = await h.type(where, h.stranger, "2", can().groups ? { replyTo: copy } : {});
      // Where the bot cannot mark a message (Teams), there is no mark: the rest holds all the same.
      if (can().marksMessages) await waitUntil(() => sent.reactions().length > 0, "a reaction on the stranger's message");
      await quiet();
      expect(h.botReplies(where).length).toBe(before);
      expect(await status(id)).toBe("pending");
      await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
    });

    it("a reply 1 ms after the prompt appears, before the bot has the platform's answer to its send, is taken", async () => {
      const replies = h.botReplies(h.chat).length;
      const held = h.holdNextPrompt(h.chat);
      const id = await ask([single]);
      const copy = await held.posted();
      await h.type(h.chat, h.person, "2", { replyTo: copy });
      await sleep(1);
      held.release();
      expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
      await waitUntil(() => h.botReplies(h.chat).slice(replies).some((t) => /Recorded: Production/.test(t)), "the confirmation");

      // A credential that fast is refused and deleted too.
      const heldAgain = h.holdNextPrompt(h.chat);
      const other = await ask([single]);
      const otherCopy = await heldAgain.posted();
      const repliesBefore = h.botReplies(h.chat).length;
      const secret = await h.type(h.chat, h.person, "sk-live_abcdefghijklmnopqrstuvwx9876", { replyTo: otherCopy });
      await sleep(1);
      heldAgain.release();
      if (can().deletesMessages) await waitUntil(() => secret.deleted(), "the credential message to be deleted");
      else await waitUntil(() => h.botReplies(h.chat).slice(repliesBefore).some((t) => /still visible/u.test(t)), "the note to delete the credential");
      expect(await status(other)).toBe("pending");
      await rpcOk(h.gatewayUrl(), "question.resolve", { id: other, cancel: true, reason: "cancelled" });
    });

    it("every message the bot sends is defused: confirmations, follow-ups and refusals with hostile text", async () => {
      const id = await ask([single]);
      const copy = await promptOf(id);
      const first = h.botReplies(h.chat).length;
      await h.type(h.chat, h.person, hostile, { replyTo: copy });
      await result(id);
      const confirmation = await waitUntil(() => h.botReplies(h.chat).slice(first).find((t) => /your own words/.test(t)), "the confirmation");
      expect(confirmation).toBe(h.platformText(`✅ Recorded: “${hostile}” (your own words)`));

      const several = await ask([{ ...env, question: `Which environment? ${hostile}` }, { ...db, header: "DB @here" }]);
      const severalCopy = await promptOf(several);
      const before = h.botReplies(h.chat).length;
      await h.type(h.chat, h.person, `db: ${hostile}`, { replyTo: severalCopy });
      const followUp = await waitUntil(() => h.botReplies(h.chat).slice(before).find((t) => /Recorded so far/.test(t)), "the follow-up");
      const texts = [confirmation, followUp];
      // A refusal that quotes what the person sent.
      const refusalsBefore = h.botReplies(h.chat).length;
      await h.type(h.chat, h.person, `9: ${hostile}`, { replyTo: severalCopy });
      texts.push(...(await waitUntil(() => h.botReplies(h.chat).slice(refusalsBefore).length > 0 && h.botReplies(h.chat).slice(refusalsBefore), "the refusal")));
      for (const text of texts) {
        expect(text).not.toMatch(/@everyone|@here/);
        expect(text).toBe(h.platformText(text.replace(/\u200B/g, "").replace(/\\(.)/gu, "$1").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")));
      }
      await rpc(h.gatewayUrl(), "question.resolve", { id: several, cancel: true, reason: "cancelled" });
    });

    it("an unknown question id on the protocol is still refused (sanity)", async () => {
      const { body } = await rpc(h.gatewayUrl(), "question.get", { id: "qnope" });
      expect(body.ok).toBe(false);
    });
  });
}

export type { BotHarness, Person, PromptCopy };
export { waitUntil };
