/** Issue 20's texts: reminders, expired copies that still take a late answer, late answers, escalated answers. */
import { describe, expect, it } from "vitest";
import { EXPIRED_SUMMARY, formatTimeLeft, LATE_OPEN_SUMMARY, renderReminderDone, renderReminderText, renderSummary, SKIP_LINE, summarizeRecord } from "../../src/render/index.ts";
import { renderDiscordSummary } from "../../src/platforms/discord/payload.ts";
import { renderSlackSummary } from "../../src/platforms/slack/payload.ts";
import { renderTelegramPrompt, renderTelegramSummary } from "../../src/platforms/telegram/payload.ts";
import { renderWhatsAppSummary } from "../../src/platforms/whatsapp/payload.ts";
import { expiredLateOpen as expired, LATE } from "../fixtures/render-records.ts";
import { question, record } from "../helpers/records.ts";

const q = question();
const ada = { surface: "slack", user: "U1", userName: "Ada", chat: "C9", via: "button" as const };

describe("late answers in the summary", () => {
  it("an expired copy within its late window says so and keeps its controls on every platform", () => {
    const now = 1_000_000;
    expect(summarizeRecord(expired, now)).toMatchObject({ kind: "expired", late: "open", text: "No answer in time — you can still answer; the agent will get it." });
    const telegram = renderTelegramSummary(expired, { nowMs: now });
    expect(telegram.text.startsWith(`${LATE_OPEN_SUMMARY}\n\n`)).toBe(true);
    expect(telegram.text).toContain(q.question);
    expect(telegram.reply_markup?.inline_keyboard.map((row) => row[0]!.text)).toEqual(["Staging (Recommended)", "Production", "Other…"]);
    expect(renderDiscordSummary(expired, { nowMs: now }).components.length).toBeGreaterThan(0);
    expect(renderSlackSummary(expired, { nowMs: now }).blocks.some((b) => b.type === "actions")).toBe(true);
  });

  it("after the window the copy reads expired and the controls go", () => {
    const now = 1_500_000;
    expect(renderSummary(expired, now)).toBe(EXPIRED_SUMMARY);
    expect(renderTelegramSummary(expired, { nowMs: now })).toEqual({ text: EXPIRED_SUMMARY, reply_markup: { inline_keyboard: [] } });
    expect(renderDiscordSummary(expired, { nowMs: now }).components).toEqual([]);
    expect(renderSlackSummary(expired, { nowMs: now }).blocks.every((b) => b.type !== "actions")).toBe(true);
  });

  it("a late answer is the summary, marked (late), and says where it came from", () => {
    const late = { ...expired, lateAnswer: { answers: { target: ["Production"] }, by: ada, atMs: 1_100_000 } };
    expect(summarizeRecord(late, 1_100_001)).toMatchObject({ kind: "answered", late: "answered", by: "in Slack by Ada" });
    expect(renderSummary(late, 1_100_001)).toBe("✅ (late) Deployment t: Production — answered late in Slack by Ada");
    expect(renderTelegramSummary(late, { nowMs: 1_100_001 }).reply_markup).toEqual({ inline_keyboard: [] });
  });

  it("without a late window an expired copy is final at once", () => {
    const plain = record([q], { status: "expired", reason: "expired", resolvedAtMs: 900_000 });
    expect(renderSummary(plain, 900_001)).toBe(EXPIRED_SUMMARY);
  });

  it("an answer from an escalation target says where it was answered", () => {
    const answered = record([q], { status: "answered", answers: { target: ["Production"] }, by: ada, resolvedAtMs: 5 });
    expect(renderSummary(answered)).toBe("✅ Deployment t: Production — answered in Slack by Ada");
  });
});

describe("a late copy offers no Skip (a late skip is refused), on every platform", () => {
  const now = LATE.nowMs;

  // The late copy of one question on each platform: test/platforms/<p>/renderers.test.ts.
  it("the numbered-text copy (two questions) drops the skip line, and only while late", () => {
    const two = record([q, question({ id: "when", header: "When", question: "When should it go?", options: [{ label: "Now" }, { label: "Tonight" }] })], {
      status: "expired", reason: "expired", resolvedAtMs: 900_000, lateAnswerSeconds: 600, lateUntilMs: 1_500_000,
    });
    const pending = renderTelegramPrompt({ ...two, status: "pending" }).text;
    expect(pending.endsWith(`\n${SKIP_LINE}`)).toBe(true);
    expect(renderTelegramSummary(two, { nowMs: now })).toEqual({ text: `${LATE_OPEN_SUMMARY}\n\n${pending.slice(0, -`\n${SKIP_LINE}`.length)}` });
    expect(renderSlackSummary(two, { nowMs: now }).text).not.toContain(SKIP_LINE);
    expect(renderWhatsAppSummary(two, { nowMs: now })).toEqual({ type: "text", text: { body: `${LATE_OPEN_SUMMARY}\n\n${pending.slice(0, -`\n${SKIP_LINE}`.length)}`, preview_url: false } });
  });
});

describe("reminders", () => {
  it.each([
    [0, "0 s"],
    [45_000, "45 s"],
    [59_001, "1 min"],
    [60_000, "1 min"],
    [299_000, "5 min"],
    [3_600_000, "1 h"],
    [5_400_000, "1 h 30 min"],
    [12_000_000, "3 h"],
  ])("%i ms left reads %s", (ms, text) => {
    expect(formatTimeLeft(ms)).toBe(text);
  });

  it("says how long is left, mentions nobody, and becomes a short line once resolved", () => {
    const pending = record([q], { expiresAtMs: 600_000 });
    expect(renderReminderText(pending, 300_000)).toBe("⏰ Still waiting for your answer — 5 min left.");
    expect(renderReminderText(pending, 300_000)).not.toMatch(/@|<!/u);
    expect(renderReminderDone(record([q], { status: "answered", answers: { target: ["Production"] }, by: ada }))).toBe("✅ Answered — see the question above.");
    expect(renderReminderDone(expired, 1_000_000)).toBe("⌛ No answer in time — you can still answer above.");
    expect(renderReminderDone(expired, 2_000_000)).toBe("⌛ No answer in time.");
    expect(renderReminderDone(record([q], { status: "cancelled", reason: "skipped", by: ada }))).toBe("⏭ Skipped.");
  });
});
