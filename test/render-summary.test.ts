import { describe, it, expect } from "vitest";
import type { AskUserQuestion } from "../src/contract/schema.ts";
import type { QuestionRecord } from "../src/record.ts";
import {
  renderDiscordPrompt,
  renderDiscordSummary,
  renderSlackPrompt,
  renderSlackSummary,
  renderSummary,
  renderTelegramPrompt,
  renderTelegramSummary,
} from "../src/render/index.ts";

const ZW = "\u200B";

const target: AskUserQuestion = {
  id: "target",
  header: "Deployment t",
  question: "Where should this deploy?",
  options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
  multiSelect: false,
};
const regions: AskUserQuestion = {
  id: "regions",
  header: "Regions",
  question: "Which regions?",
  options: [{ label: "eu" }, { label: "us" }, { label: "ap" }],
  multiSelect: true,
};

function record(over: Partial<QuestionRecord> = {}): QuestionRecord {
  return { id: "q_123", questions: [target], timeoutSeconds: 900, status: "pending", createdAtMs: 0, expiresAtMs: 1, targets: [], deliveries: [], ...over };
}

const ada = { surface: "telegram", user: "42", userName: "Ada", via: "button" } as const;

describe("renderSummary", () => {
  it.each<[string, Partial<QuestionRecord>, string]>([
    ["answered, no by", { status: "answered", answers: { target: ["Staging (Recommended)"] } }, "✅ Deployment t: Staging (Recommended)"],
    [
      "answered in Telegram by Ada",
      { status: "answered", answers: { target: ["Production"] }, by: ada },
      "✅ Deployment t: Production — answered in Telegram by Ada",
    ],
    [
      "answered on the web, user id only",
      { status: "answered", answers: { target: ["Production"] }, by: { surface: "web", user: "ada", via: "web" } },
      "✅ Deployment t: Production — answered on the web by ada",
    ],
    [
      "answered via the API, no user",
      { status: "answered", answers: { target: ["Production"] }, by: { surface: "api", via: "api" } },
      "✅ Deployment t: Production — answered via the API",
    ],
    [
      "answered in an unknown surface",
      { status: "answered", answers: { target: ["Production"] }, by: { surface: "matrix", user: "bob", via: "text" } },
      "✅ Deployment t: Production — answered in Matrix by bob",
    ],
    [
      "own words quoted and folded onto one line",
      { status: "answered", answers: { target: ["  both,\nplease  "] }, by: ada },
      "✅ Deployment t: “both, please” — answered in Telegram by Ada",
    ],
    [
      "own words cut to 80 with an ellipsis",
      { status: "answered", answers: { target: ["x".repeat(200)] } },
      `✅ Deployment t: “${"x".repeat(79)}…”`,
    ],
    [
      "several questions, multi values comma-joined",
      { questions: [target, regions], status: "answered", answers: { target: ["Production"], regions: ["eu", "ap", "mars"] }, by: { ...ada, surface: "slack" } },
      "✅ Deployment t: Production\n✅ Regions: eu, ap, “mars”\n— answered in Slack by Ada",
    ],
    ["skipped", { status: "cancelled", reason: "skipped" }, "⏭ Skipped"],
    ["skipped by Ada", { status: "cancelled", reason: "skipped", by: { ...ada, surface: "discord" } }, "⏭ Skipped in Discord by Ada"],
    ["expired", { status: "expired", reason: "expired" }, "⌛ No answer (expired)"],
    ["cancelled", { status: "cancelled", reason: "cancelled" }, "✖ Cancelled"],
    ["cancelled via the CLI", { status: "cancelled", reason: "cancelled", by: { surface: "cli", via: "api" } }, "✖ Cancelled via the CLI"],
    ["aborted", { status: "cancelled", reason: "aborted" }, "✖ Cancelled (the agent stopped)"],
    ["delivery failed", { status: "cancelled", reason: "delivery_failed" }, "⚠ Not delivered"],
    [
      "delivery failed with a detail",
      { status: "expired", reason: "delivery_failed", detail: "no bot connected\nfor slack" },
      "⚠ Not delivered: no bot connected for slack",
    ],
  ])("%s", (_name, over, text) => {
    expect(renderSummary(record(over))).toBe(text);
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
