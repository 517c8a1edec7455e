import { describe, it, expect } from "vitest";
import type { QuestionRecord } from "../../src/record/record.ts";
import { renderSummary } from "../../src/render/index.ts";
import { renderDiscordPrompt, renderDiscordSummary } from "../../src/platforms/discord/payload.ts";
import { renderSlackPrompt, renderSlackSummary } from "../../src/platforms/slack/payload.ts";
import { renderTelegramPrompt, renderTelegramSummary } from "../../src/platforms/telegram/payload.ts";
import { SUMMARY_CASES, target } from "../fixtures/summary-cases.ts";
import { record as recordOf } from "../helpers/records.ts";

const ZW = "\u200B";

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
  const hostile = record({
    status: "answered",
    answers: { target: ["<!channel> @everyone *ship* it & run <script>"] },
    by: { surface: "telegram", userName: "@here", via: "text" },
  });

  it("Telegram: plain text, keyboard removed", () => {
    expect(renderTelegramSummary(hostile)).toEqual({
      text: `✅ Deployment t: “<!channel> @${ZW}everyone *ship* it & run <script>” — answered in Telegram by @${ZW}here`,
      reply_markup: { inline_keyboard: [] },
    });
  });

  it("Discord: escaped content, components removed, no mentions", () => {
    expect(renderDiscordSummary(hostile)).toEqual({
      content: `✅ Deployment t: “\\<!channel> @${ZW}everyone \\*ship\\* it & run \\<script>” — answered in Telegram by @${ZW}here`,
      components: [],
      allowed_mentions: { parse: [] },
    });
  });

  it("Slack: escaped section, no actions block", () => {
    const text = `✅ Deployment t: “&lt;!channel&gt; @${ZW}everyone *ship* it &amp; run &lt;script&gt;” — answered in Telegram by @${ZW}here`;
    expect(renderSlackSummary(hostile)).toEqual({ text, blocks: [{ type: "section", text: { type: "mrkdwn", text, verbatim: true } }] });
  });

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
