/** Issue 20's texts: reminders, expired copies that still take a late answer, late answers, escalated answers. */
import { describe, expect, it } from "vitest";
import { EXPIRED_SUMMARY, formatTimeLeft, LATE_OPEN_SUMMARY, renderReminderDone, renderReminderText, renderSummary, SKIP_LINE, summarizeRecord } from "../../src/render/index.ts";
import { renderDiscordSummary } from "../../src/platforms/discord/payload.ts";
import { renderSlackSummary } from "../../src/platforms/slack/payload.ts";
import { renderMatrixSummary } from "../../src/platforms/matrix/payload.ts";
import { renderMattermostSummary } from "../../src/platforms/mattermost/payload.ts";
import { renderTeamsSummary } from "../../src/platforms/teams/payload.ts";
import { renderTelegramPrompt, renderTelegramSummary } from "../../src/platforms/telegram/payload.ts";
import { renderWhatsAppSummary } from "../../src/platforms/whatsapp/payload.ts";
import { question, record } from "../helpers/records.ts";

const q = question();
const expired = record([q], { status: "expired", reason: "expired", resolvedAtMs: 900_000, lateAnswerSeconds: 600, lateUntilMs: 1_500_000 });
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
  const now = 1_000_000;
  const text = `${LATE_OPEN_SUMMARY}\n\nDeployment t\nWhere should this deploy?\n\nChoose a button below, or reply in your own words.`;
  const [c0, c1, other] = ["a1|q_123|c|0", "a1|q_123|c|1", "a1|q_123|o"];

  it("the pending prompt still has Skip", () => {
    expect(renderTelegramPrompt(record([q])).reply_markup?.inline_keyboard.at(-1)).toEqual([{ text: "Skip", callback_data: "a1|q_123|s" }]);
  });

  it("Telegram", () => {
    expect(renderTelegramSummary(expired, { nowMs: now })).toEqual({
      text,
      reply_markup: { inline_keyboard: [[{ text: "Staging (Recommended)", callback_data: c0 }], [{ text: "Production", callback_data: c1 }], [{ text: "Other…", callback_data: other }]] },
    });
  });

  it("Discord", () => {
    expect(renderDiscordSummary(expired, { nowMs: now })).toEqual({
      content: text,
      components: [
        { type: 1, components: [{ type: 2, style: 1, label: "Staging (Recommended)", custom_id: c0 }, { type: 2, style: 1, label: "Production", custom_id: c1 }] },
        { type: 1, components: [{ type: 2, style: 2, label: "Other…", custom_id: other }] },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it("Slack", () => {
    const button = (label: string, id: string) => ({ type: "button", text: { type: "plain_text", text: label, emoji: true }, action_id: id, value: id });
    expect(renderSlackSummary(expired, { nowMs: now })).toEqual({
      text,
      blocks: [
        { type: "section", text: { type: "mrkdwn", text, verbatim: true } },
        { type: "actions", block_id: "ask_user:q_123", elements: [button("Staging (Recommended)", c0), button("Production", c1), button("Other…", other)] },
      ],
    });
  });

  it("WhatsApp", () => {
    expect(renderWhatsAppSummary(expired, { nowMs: now })).toEqual({
      type: "interactive",
      interactive: {
        type: "list",
        body: { text },
        action: { button: "Choose an answer", sections: [{ rows: [{ id: c0, title: "Staging (Recommended)" }, { id: c1, title: "Production" }, { id: other, title: "Other…" }] }] },
      },
    });
  });

  it("Mattermost", () => {
    const action = (id: string, name: string, style: string, d: string) => ({ id, type: "button", name, style, integration: { url: "", context: { d, c: "", s: "" } } });
    expect(renderMattermostSummary(expired, { nowMs: now })).toEqual({
      message: text,
      props: {
        attachments: [{ fallback: "Staging (Recommended) · Production · Other…", actions: [action("opt0", "Staging (Recommended)", "primary", c0), action("opt1", "Production", "primary", c1), action("other", "Other…", "default", other)] }],
        ask_user_question: "q_123",
      },
    });
  });

  it("Teams", () => {
    const card = renderTeamsSummary(expired, { nowMs: now });
    expect(card.text).toBe(text);
    expect(card.card.actions).toEqual([
      { type: "Action.Submit", title: "Staging (Recommended)", data: { ask_user: c0 } },
      { type: "Action.Submit", title: "Production", data: { ask_user: c1 } },
      {
        type: "Action.ShowCard",
        title: "Other…",
        card: {
          type: "AdaptiveCard",
          body: [{ type: "Input.Text", id: "ask_user_answer", label: "Where should this deploy?", isMultiline: true, maxLength: 2000, placeholder: "Your answer" }],
          actions: [{ type: "Action.Submit", title: "Send", data: { ask_user: other } }],
        },
      },
    ]);
  });

  it("Matrix: the poll's answers and its numbered fallback", () => {
    const fallback = `${LATE_OPEN_SUMMARY}\n\nDeployment t\nWhere should this deploy?\n\n1. Staging (Recommended)\n2. Production\n\nNone of these? Reply in your own words.\nReply with a number, a label, or your own words.`;
    const pollQuestion = `${LATE_OPEN_SUMMARY}\nDeployment t: Where should this deploy?`;
    expect(renderMatrixSummary(expired, { nowMs: now })).toEqual({
      prompt: {
        type: "org.matrix.msc3381.poll.start",
        content: {
          "org.matrix.msc3381.poll.start": {
            question: { "org.matrix.msc1767.text": pollQuestion, body: pollQuestion, msgtype: "m.text" },
            kind: "org.matrix.msc3381.poll.disclosed",
            max_selections: 1,
            answers: [
              { id: c0, "org.matrix.msc1767.text": "Staging (Recommended)" },
              { id: c1, "org.matrix.msc1767.text": "Production" },
              { id: other, "org.matrix.msc1767.text": "Other…" },
            ],
          },
          "org.matrix.msc1767.text": fallback,
          body: fallback,
          msgtype: "m.text",
          "m.mentions": {},
        },
      },
      pollEnded: false,
    });
  });

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
