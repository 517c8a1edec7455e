/**
 * What the Control UI lists under a question after it was asked (src/web/record-history.ts): reminders sent,
 * escalation steps taken, the expiry a late answer came after, and the reminder marks on the time bar. Pure, so
 * checked here as a table; the page runs the same code from its bundle, checked equal below.
 */
import { describe, expect, it } from "vitest";
import type { QuestionRecord } from "../../src/record/record.ts";
import { describeTarget, recordHistory, reminderMarks } from "../../src/web/record-history.ts";
import * as bundle from "../../src/web/static/shared.js";
import { question, record } from "../helpers/records.ts";

const q = question();
const ada = { surface: "telegram", user: "42", userName: "Ada", via: "button" as const };
const reminded = { reminders: [600, 300], remindersSent: [{ offsetSeconds: 600, atMs: 300_000 }] };
const escalated = {
  escalate: [{ afterSeconds: 420, targets: [{ surface: "slack" as const, chat: "C0123ABCD" }] }],
  escalated: [{ step: 0, afterSeconds: 420, targets: [{ surface: "slack" as const, chat: "C0123ABCD" }, { surface: "web" as const }], atMs: 420_000 }],
};

const CASES: Array<[string, QuestionRecord, string[]]> = [
  ["nothing happened", record([q]), []],
  ["a reminder sent", record([q], reminded), ["⏰ Reminder sent — 10 min left @300000"]],
  [
    "a reminder, then an escalation step, oldest first",
    record([q], { ...reminded, ...escalated, remindersSent: [{ offsetSeconds: 300, atMs: 600_000 }] }),
    ["↗ Escalated after 7 min: now also in Slack (C0123ABCD), on the web @420000", "⏰ Reminder sent — 5 min left @600000"],
  ],
  ["expired, with its late window still open: the summary says so", record([q], { status: "expired", reason: "expired", resolvedAtMs: 900_000, lateUntilMs: 2_000_000 }), []],
  [
    "a late answer: the expiry it came after",
    record([q], { ...reminded, status: "expired", reason: "expired", resolvedAtMs: 900_500, lateUntilMs: 2_000_000, lateAnswer: { answers: { target: ["Production"] }, by: ada, atMs: 1_000_000 } }),
    ["⏰ Reminder sent — 10 min left @300000", "⌛ No answer in time: the agent went on without it @900500"],
  ],
  ["answered in time", record([q], { ...reminded, status: "answered", answers: { target: ["Production"] }, by: ada, resolvedAtMs: 400_000 }), ["⏰ Reminder sent — 10 min left @300000"]],
];

describe("a record's history in the Control UI", () => {
  it.each(CASES)("%s", (_name, given, lines) => {
    expect(recordHistory(given).map((l) => `${l.icon} ${l.text} @${l.atMs}`)).toEqual(lines);
    expect(bundle.recordHistory(given)).toEqual(recordHistory(given));
  });

  it.each([
    [{ surface: "slack" as const, chat: "C0123ABCD" }, "in Slack (C0123ABCD)"],
    [{ surface: "telegram" as const, chat: "-1001234567890", users: ["42"] }, "in Telegram (-1001234567890)"],
    [{ surface: "web" as const }, "on the web"],
  ])("describes the target %j as “%s”", (target, text) => {
    expect(describeTarget(target)).toBe(text);
  });

  it("marks each reminder moment, earliest first, sent once fired", () => {
    const marks = reminderMarks(record([q], reminded));
    expect(marks).toEqual([
      { offsetSeconds: 600, atMs: 300_000, sent: true },
      { offsetSeconds: 300, atMs: 600_000, sent: false },
    ]);
    expect(bundle.reminderMarks(record([q], reminded))).toEqual(marks);
    expect(reminderMarks(record([q]))).toEqual([]);
  });
});
