import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcOk } from "../helpers/gateway.ts";
import { PLATFORM_SURFACES, isPlatform } from "../../src/platforms/index.ts";
import { capabilitiesOf, pressTold, type BotHarness, type Person, type PromptCopy } from "./harness.ts";
import { elapse, quietPeriod, scenarioTools, skipAhead, waitUntil } from "./tools.ts";

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
};
const multi = { id: "checks", header: "Checks", question: "Which checks should run?", multiSelect: true, options: [{ label: "Lint" }, { label: "Unit" }, { label: "E2E" }] };

/**
 * How the suite spends time. Default: every case, on the real clock. "virtual": every case, on the harness's virtual
 * clock (`clock`, the in-memory platform), one at a time, since a case moves the clock for all. "smoke": on the real
 * clock, only one reminder case and one late-answer case: the others run in full on the in-memory platform. Only for
 * a platform that can do everything the suites test (FULL_CAPABILITIES, like the in-memory one); one that lacks
 * something runs every case, since their branches for what it lacks run nowhere else.
 */
export type FollowUpTime = "real" | "virtual" | "smoke";

/**
 * When nobody answers (issue 20), on every platform: reminders, escalation within the platform, late answers and
 * the end of the late window, with the real bot against its fake and short timeouts. Each test uses its own
 * questions and copies, so on the real clock they run concurrently, on a harness of their own.
 */
export function runFollowUpScenarios(name: string, makeHarness: () => Promise<BotHarness>, time: FollowUpTime = "real") {
  /** A case; `smoke`: it also runs in a smoke run; `concurrent`: beside the others, on the real clock. */
  const scenario = ({ smoke = false, concurrent = false }, title: string, body: () => Promise<void>) => {
    if (time === "smoke" && !smoke) return;
    (concurrent && time !== "virtual" ? it.concurrent : it)(title, body);
  };
  describe(`${name}: when nobody answers (reminders, escalation, late answers)`, () => {
    let h: BotHarness;
    beforeAll(async () => {
      h = await makeHarness();
    }, 60_000);
    afterAll(async () => {
      await h?.close();
    });

    const ask = async (questions: unknown[], extra: Record<string, unknown> = {}, chat?: string) => {
      const { id } = await rpcOk(h.gatewayUrl(), "question.request", { questions, targets: [{ surface: h.surface, chat: chat ?? h.chat }], ...extra });
      return id as string;
    };
    const { promptOf, result, summaryOf, lateOpenOf } = scenarioTools(() => h);
    const get = (id: string) => rpcOk(h.gatewayUrl(), "question.get", { id });
    const where = () => `in ${isPlatform(h.surface) ? PLATFORM_SURFACES[h.surface].title : h.surface}`;
    /** What the platform can do (its harness declares what it cannot). */
    const can = () => capabilitiesOf(h);
    /** What a press of option `n` tells the presser (a toast, or the typed reply's confirmation without buttons). */
    const submitted = (label: string, n: number) => pressTold(can(), label, n);
    /** Who answers in `chat`: the person, in a group; where every chat is one person's, that chat's person. */
    const answererIn = (chat: string): Person => (can().groups ? h.person : [h.person, h.colleague, h.stranger].find((p) => p.id === chat)!);
    /** A credential typed in reply: deleted where the bot may, else left visible with a note to delete it and rotate it. */
    const takenDown = async (chat: string, sent: { deleted(): boolean }, repliesBefore: number) => {
      if (can().deletesMessages) return void (await waitUntil(() => sent.deleted(), "the credential message to be deleted"));
      await waitUntil(() => h.botReplies(chat).slice(repliesBefore).some((t) => /still visible.*rotate/su.test(t)), "the note to delete the credential and rotate it");
      expect(sent.deleted()).toBe(false);
    };
    /** The reminder after the answer: deleted where the bot may delete its own messages, else it stays as sent. */
    const reminderCleared = async (copy: PromptCopy) => {
      if (can().deletesOwnMessages) return void (await waitUntil(() => h.repliesTo(copy)[0]?.deleted, "the reminder to be deleted"));
      await quietPeriod();
      expect(h.repliesTo(copy)[0]).toMatchObject({ deleted: false, text: expect.stringMatching(/^⏰/u) });
    };
    /** The copy's question (asked with timeoutSeconds: 1) expires; waits until the copy says a late answer is still taken, with its controls (see lateOpenOf). */
    const lateOpen = async (copy: PromptCopy) => {
      await skipAhead(h.clock, 1_000);
      return lateOpenOf(copy);
    };

    scenario({ concurrent: true }, "no reminder for a question answered before it came due, and none with reminders: []", async () => {
      const answered = await ask([single], { timeoutSeconds: 6, reminders: [4] });
      const copy = await promptOf(answered);
      expect(await h.press(copy, 0, h.person)).toBe(submitted("Staging (Recommended)", 1));
      const none = await ask([single], { timeoutSeconds: 4, reminders: [] }, h.otherChat);
      const noneCopy = await promptOf(none, h.otherChat);
      await elapse(h.clock, 3_000);
      expect(h.repliesTo(copy)).toEqual([]);
      expect(h.repliesTo(noneCopy)).toEqual([]);
      expect((await get(answered)).remindersSent ?? []).toEqual([]);
      await rpcOk(h.gatewayUrl(), "question.resolve", { id: none, cancel: true, reason: "cancelled" });
    });

    scenario({ concurrent: true }, "an escalation step delivers the new copy like a new question; the first answer wins and every copy says where", async () => {
      const id = await ask([single], { timeoutSeconds: 30, escalate: [{ afterSeconds: 1, targets: [{ surface: h.surface, chat: h.otherChat }] }] });
      const first = await promptOf(id);
      await skipAhead(h.clock, 1_000);
      const escalated = await promptOf(id, h.otherChat);
      expect(escalated.buttons).toEqual(first.buttons);
      expect((await get(id)).escalated).toMatchObject([{ step: 0, targets: [{ surface: h.surface, chat: h.otherChat }] }]);
      expect(await h.press(escalated, 1, h.colleague)).toBe(submitted("Production", 2));
      const pattern = new RegExp(`Production — answered ${where()} by ${h.colleague.name}`, "u");
      await summaryOf(first, pattern);
      await summaryOf(escalated, pattern);
      expect(await h.press(first, 0, h.person)).toBe("This question was already answered.");
      expect(h.promptSends(id)).toBe(2);
    });

    scenario({ smoke: true, concurrent: true }, "a late press is taken as the late answer: confirmed as late, collected, and every copy says so", async () => {
      const id = await ask([single], { timeoutSeconds: 1 });
      const copy = await lateOpen(await promptOf(id));
      // No Skip on a late copy (issue 30): an expired question has nothing to skip, and a stale skip is refused
      // (test/bridge/bridge-effects.test.ts).
      expect(copy.buttons).toEqual(can().buttons ? ["Staging (Recommended)", "Production", "Other…"] : []);
      expect(await result(id)).toEqual({ status: "no_answer", reason: "expired" });
      // No group chats: a stranger's selection comes from their own chat, gets the mark and no answer.
      expect(await h.press(copy, 1, h.stranger)).toBe(can().groups ? "This question is for someone else." : undefined);
      expect(await h.press(copy, 1, h.person)).toBe("✅ Recorded (late): Production (option 2)");
      const record = await get(id);
      expect(record).toMatchObject({ status: "expired", lateAnswer: { answers: { deploy_target: ["Production"] }, by: { surface: h.surface, user: h.person.id, via: can().buttons ? "button" : "text" } } });
      await summaryOf(copy, new RegExp(`^✅ \\(late\\) Deployment t\\S*: Production — answered late ${where()} by ${h.person.name}`, "u"));
      expect(await h.press(copy, 0, can().groups ? h.colleague : h.person)).toBe("This question was already answered.");
      expect((await get(id)).lateAnswer.answers).toEqual({ deploy_target: ["Production"] });
    });

    scenario({ concurrent: true }, "Other… on an expired copy: the person's own words are the late answer", async () => {
      const id = await ask([single], { timeoutSeconds: 1 }, h.otherChat);
      const copy = await lateOpen(await promptOf(id, h.otherChat));
      await h.answerOther(copy, answererIn(h.otherChat), "Canary first, late");
      await waitUntil(async () => (await get(id)).lateAnswer, "the late answer");
      expect((await get(id)).lateAnswer.answers).toEqual({ deploy_target: ["Canary first, late"] });
      await summaryOf(copy, /✅ \(late\) .*“Canary first, late” — answered late/u);
    });

    scenario({ concurrent: true }, "a late typed reply: in a group only as a reply to the prompt, in a direct message any message", async () => {
      const id = await ask([single, multi], { timeoutSeconds: 1 });
      const copy = await lateOpen(await promptOf(id));
      // Numbered text, no buttons: nothing in it says to tap or press anything.
      expect(copy.buttons).toEqual([]);
      expect(copy.text).not.toMatch(/\btap\b|\bpress\b|\bbutton/iu);
      if (can().groups) {
        await h.type(h.chat, h.person, "1: 2\n2: lint");
        await quietPeriod(400);
        expect((await get(id)).lateAnswer).toBeUndefined();
      } // else every chat is a direct message, as below: any message of the person's counts there

      const before = h.botReplies(h.chat).length;
      await h.type(h.chat, h.person, "1: 2\n2: lint", { replyTo: copy });
      const confirmation = await waitUntil(() => h.botReplies(h.chat).slice(before).find((t) => /Recorded \(late\)/u.test(t)), "the late confirmation");
      expect(confirmation).toContain("✅ Recorded (late):");
      expect((await get(id)).lateAnswer.answers).toEqual({ deploy_target: ["Production"], checks: ["Lint"] });
      await summaryOf(copy, /answered late/u);

      const direct = await ask([single], { timeoutSeconds: 1 }, h.person.id);
      const directCopy = await lateOpen(await promptOf(direct, h.person.id));
      const dmBefore = h.botReplies(h.person.id).length;
      // Where every chat is one person's (no groups), the DM is the scenario chat, which the tests running beside this
      // one share: the reply quotes its prompt, so it is about this question (the bot suite checks that any message
      // counts in a DM).
      await h.type(h.person.id, h.person, "1", can().groups ? {} : { replyTo: directCopy });
      const dmConfirmation = await waitUntil(() => h.botReplies(h.person.id).slice(dmBefore).find((t) => /Recorded \(late\): Staging/u.test(t)), "the late confirmation in the DM");
      expect(dmConfirmation).toBe(h.platformText("✅ Recorded (late): Staging (Recommended) (option 1)"));
      expect((await get(direct)).lateAnswer.by).toMatchObject({ via: "text", user: h.person.id });
    });

    scenario({ concurrent: true }, "a late reply goes through the same guards: a credential is refused and deleted, a re-delivered reply is taken once", async () => {
      const id = await ask([single], { timeoutSeconds: 1 }, h.otherChat);
      const copy = await lateOpen(await promptOf(id, h.otherChat));
      const who = answererIn(h.otherChat);
      const noted = h.botReplies(h.otherChat).length;
      const secret = await h.type(h.otherChat, who, "sk-live_abcdefghijklmnopqrstuvwx4321", { replyTo: copy });
      await takenDown(h.otherChat, secret, noted);
      expect((await get(id)).lateAnswer).toBeUndefined();
      // Skip is final, and an expired question has nothing left to skip.
      const skipped = h.botReplies(h.otherChat).length;
      await h.type(h.otherChat, who, "skip", { replyTo: copy });
      await waitUntil(() => h.botReplies(h.otherChat).slice(skipped).some((t) => /already expired, so there is nothing to skip/u.test(t)), "the skip refused");
      expect((await get(id)).lateAnswer).toBeUndefined();
      const before = h.botReplies(h.otherChat).length;
      const answer = await h.type(h.otherChat, who, "2", { replyTo: copy });
      await waitUntil(() => h.botReplies(h.otherChat).slice(before).some((t) => /Recorded \(late\): Production/u.test(t)), "the late confirmation");
      const replies = h.botReplies(h.otherChat).length;
      await answer.redeliver();
      await quietPeriod(400);
      expect(h.botReplies(h.otherChat).length).toBe(replies);
      expect((await get(id)).lateAnswer).toMatchObject({ answers: { deploy_target: ["Production"] } });
    });

    scenario({ concurrent: true }, "after the late window the copy reads expired, its controls go, and nothing more is taken", async () => {
      const id = await ask([single], { timeoutSeconds: 1, lateAnswerSeconds: 2 });
      const copy = await promptOf(id);
      await lateOpen(copy);
      await skipAhead(h.clock, 2_000);
      await summaryOf(copy, /^⌛ No answer \(expired\)$/u);
      expect(await h.press(copy, 1, h.person)).toBe("This question was already answered.");
      const before = h.botReplies(h.chat).length;
      await h.type(h.chat, h.person, "2", { replyTo: copy });
      await waitUntil(() => h.botReplies(h.chat).length > before, "the refusal");
      expect((await get(id)).lateAnswer).toBeUndefined();
      // A credential posted in reply to the closed prompt is still taken down.
      const noted = h.botReplies(h.chat).length;
      const secret = await h.type(h.chat, h.person, "sk-live_abcdefghijklmnopqrstuvwx5678", { replyTo: copy });
      await takenDown(h.chat, secret, noted);
    });

    // Last and alone, one after the other: they restart the bot.
    scenario({}, "a bot that was down when a reminder fired and an escalation step was taken catches up when it starts: the new copy, and the reminder where still useful", async () => {
      const id = await ask([single], { timeoutSeconds: 20, reminders: [18], escalate: [{ afterSeconds: 1, targets: [{ surface: h.surface, chat: h.otherChat }] }] });
      const copy = await promptOf(id);
      await h.restartBot(async () => {
        await skipAhead(h.clock, 2_000);
        await waitUntil(async () => {
          const record = await get(id);
          return record.remindersSent?.length === 1 && record.escalated?.length === 1;
        }, "the reminder and the escalation step while the bot is down");
      });
      const escalated = await promptOf(id, h.otherChat);
      const [reminder] = await waitUntil(() => h.repliesTo(copy).length > 0 && h.repliesTo(copy), "the reminder after the restart");
      expect(reminder!.text).toMatch(/^⏰ Still waiting for your answer — \d+ s left\.$/u);
      // The escalated copy came after the reminder fired: it gets none.
      await quietPeriod();
      expect(h.repliesTo(escalated)).toEqual([]);
      expect(await h.press(escalated, 0, answererIn(h.otherChat))).toBe(submitted("Staging (Recommended)", 1));
      await reminderCleared(copy);
      await summaryOf(copy, new RegExp(`Staging \\(Recommended\\) — answered ${where()} by ${answererIn(h.otherChat).name}`, "u"));
    });


    scenario({ smoke: true }, "a reminder is a reply to the prompt, sent once (a bot restart sends it no second time), pings nobody; a reply to it answers, and it is deleted after the answer", async () => {
      const id = await ask([single], { timeoutSeconds: 8, reminders: [6] });
      const copy = await promptOf(id);
      await skipAhead(h.clock, 2_000);
      const [reminder] = await waitUntil(() => h.repliesTo(copy).length > 0 && h.repliesTo(copy), "the reminder");
      expect(reminder!.text).toMatch(/^⏰ Still waiting for your answer — \d s left\.$/u);
      expect(reminder!.text).not.toMatch(/\btap\b|\bpress\b/i);
      expect(reminder!.pings).toBe(false);
      const recorded = await waitUntil(async () => (await get(id)).reminderCopies?.length === 1 && (await get(id)).reminderCopies, "the reminder recorded");
      expect(recorded[0]).toMatchObject({ surface: h.surface, chat: h.chat, offsetSeconds: 6, messageRef: reminder!.ref });
      await h.restartBot();
      await quietPeriod(400);
      expect(h.repliesTo(copy)).toHaveLength(1);
      await h.type(h.chat, h.person, "2", { replyTo: reminder! });
      expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
      await reminderCleared(copy);
      await summaryOf(copy, /✅ Deployment t\S*: Production/u);
      expect(h.repliesTo(copy).filter((r) => r.text.startsWith("⏰"))).toHaveLength(1);
    });

    scenario({}, "where the platform refuses to delete the reminder, it is edited to a short line once the question resolves", async () => {
      const id = await ask([single], { timeoutSeconds: 8, reminders: [6] });
      const copy = await promptOf(id);
      await skipAhead(h.clock, 2_000);
      const [reminder] = await waitUntil(() => h.repliesTo(copy).length > 0 && h.repliesTo(copy), "the reminder");
      h.refuseDeletingOwn(true);
      try {
        await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "skipped", by: { surface: "web", via: "web" } });
        if (!can().edits) {
          // No edits: the reminder stays as sent, and the summary reply to the prompt says the question is closed.
          await summaryOf(copy, /⏭ Skipped/u);
          expect(h.repliesTo(copy)).toEqual([expect.objectContaining({ ref: reminder!.ref, text: reminder!.text, deleted: false })]);
          return;
        }
        const done = await waitUntil(() => h.repliesTo(copy).find((r) => r.ref === reminder!.ref && r.text !== reminder!.text), "the reminder edited");
        expect(done.text).toBe(h.platformText("⏭ Skipped."));
        expect(done.deleted).toBe(false);
      } finally {
        h.refuseDeletingOwn(false);
      }
    });
  });
}
