import { describe, it, expect } from "vitest";
import type { QuestionRecord } from "../../src/record/record.ts";
import { renderSummary } from "../../src/render/index.ts";
import { renderDiscordPrompt, renderDiscordSummary } from "../../src/platforms/discord/payload.ts";
import { renderSlackPrompt, renderSlackSummary } from "../../src/platforms/slack/payload.ts";
import { renderTelegramPrompt, renderTelegramSummary } from "../../src/platforms/telegram/payload.ts";
import { SUMMARY_CASES, target } from "../fixtures/summary-cases.ts";
import { record as recordOf } from "../helpers/records.ts";

/** A record asking the fixtures' one question. */
function record(over: Partial<QuestionRecord> = {}): QuestionRecord {
  return recordOf([target], over);
}

describe("renderSummary", () => {
  it.each(SUMMARY_CASES)("%s", (_name, resolved, text) => {
    expect(renderSummary(resolved)).toBe(text);
  });

  it("a pending record renders its numbered-text prompt", () => {
    expect(renderSummary(record())).toMatch(/^Deployment t\nWhere should this deploy\?\n\n1\. Staging/u);
  });
});

describe("platform summaries", () => {
  // An answer in hostile text on each platform: test/platforms/<p>/renderers.test.ts.
  it.each([
    ["skipped", { status: "cancelled", reason: "skipped" }, "⏭ Skipped"],
    ["expired", { status: "expired", reason: "expired" }, "⌛ No answer (expired)"],
    ["cancelled", { status: "cancelled", reason: "cancelled" }, "✖ Cancelled"],
    ["aborted", { status: "cancelled", reason: "aborted" }, "✖ Cancelled (the agent stopped)"],
  ] as const)("%s on every platform", (_name, over, text) => {
    const r = record(over);
    expect(renderTelegramSummary(r)).toEqual({ text, reply_markup: { inline_keyboard: [] } });
    expect(renderDiscordSummary(r)).toEqual({ content: text, components: [], allowed_mentions: { parse: [] } });
    expect(renderSlackSummary(r)).toEqual({ text, blocks: [{ type: "section", text: { type: "mrkdwn", text, verbatim: true } }] });
  });

  it("a pending record renders the prompt, buttons and all", () => {
    const r = record();
    expect(renderTelegramSummary(r)).toEqual(renderTelegramPrompt(r));
    expect(renderDiscordSummary(r)).toEqual(renderDiscordPrompt(r));
    expect(renderSlackSummary(r)).toEqual(renderSlackPrompt(r));
  });
});
