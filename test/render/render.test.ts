import { describe, it, expect } from "vitest";
import { chooseLayout, GROUP_REPLY_HINTS, renderMissingPrompt, renderPromptText } from "../../src/render/index.ts";
import { renderDiscordPrompt } from "../../src/platforms/discord/payload.ts";
import { renderSlackPrompt, renderSlackMissingPrompt } from "../../src/platforms/slack/payload.ts";
import { renderTelegramPrompt, renderTelegramMissingPrompt, renderTelegramSummary } from "../../src/platforms/telegram/payload.ts";
import { question, record } from "../helpers/records.ts";

const dBtn = (style: 1 | 2, label: string, custom_id: string) => ({ type: 2, style, label, custom_id });
const sBtn = (text: string, id: string) => ({ type: "button", text: { type: "plain_text", text, emoji: true }, action_id: id, value: id });
const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text, verbatim: true } });

const SINGLE_FOOTER = "None of these? Reply in your own words.\nReply with a number, a label, or your own words.\nReply skip to skip.";
const MULTI_FOOTER =
  "None of these? Reply in your own words.\nPick one or more: reply with numbers or labels, comma-separated (e.g. 1, 2), or your own words.\nReply skip to skip.";
const SEVERAL_FOOTER =
  'None of these? Reply in your own words.\nReply with one line per question: a number, a label, or your own words, e.g. "1: 2" for option 2 of question 1.\nReply skip to skip.';

describe("chooseLayout", () => {
  const multi = question({ multiSelect: true });
  it.each([
    ["one single-select on telegram", [question()], "telegram", "buttons"],
    ["one single-select on discord", [question()], "discord", "buttons"],
    ["one single-select on slack", [question()], "slack", "buttons"],
    ["one single-select on web", [question()], "web", "text"],
    ["one multi-select", [multi], "telegram", "text"],
    ["two questions", [question(), question({ id: "b", header: "B" })], "slack", "text"],
  ] as const)("%s", (_name, questions, surface, layout) => {
    expect(chooseLayout([...questions], surface)).toBe(layout);
  });
});

describe("one single-select question (buttons)", () => {
  // Each platform's payload for it: test/platforms/<p>/renderers.test.ts.
  const r = record([question()]);

  it("numbered text when asked for the text layout", () => {
    expect(renderPromptText(r.questions)).toBe(
      `Deployment t\nWhere should this deploy?\n\n1. Staging (Recommended)\n2. Production\n\n${SINGLE_FOOTER}`,
    );
  });
});

describe("one multi-select question (text)", () => {
  const r = record([question({ id: "regions", header: "Regions", question: "Which regions?", multiSelect: true })]);
  const text = `Regions\nWhich regions?\n\n1. Staging (Recommended)\n2. Production\n\n${MULTI_FOOTER}`;

  it("renders the same text everywhere, with no buttons", () => {
    expect(renderTelegramPrompt(r)).toEqual({ text });
    expect(renderDiscordPrompt(r)).toEqual({ content: text, components: [], allowed_mentions: { parse: [] } });
    expect(renderSlackPrompt(r)).toEqual({ text, blocks: [section(text)] });
  });
});

describe("several questions (text)", () => {
  const a = question();
  const b = question({ id: "size", header: "Size", question: "How big?", options: [{ label: "Small" }, { label: "Large", description: "Costs more" }] });
  const c = question({ id: "regions", header: "Regions", question: "Which regions?", multiSelect: true, options: [{ label: "eu" }, { label: "us" }, { label: "ap" }] });
  const blockA = "Question 1: Deployment t\nWhere should this deploy?\n1. Staging (Recommended)\n2. Production";

  it("2 questions", () => {
    const text = `${blockA}\n\nQuestion 2: Size\nHow big?\n1. Small\n2. Large - Costs more\n\n${SEVERAL_FOOTER}`;
    expect(renderPromptText([a, b])).toBe(text);
    expect(renderDiscordPrompt(record([a, b]))).toEqual({ content: text, components: [], allowed_mentions: { parse: [] } });
  });

  it("3 questions, one multi-select", () => {
    const text =
      `${blockA}\n\nQuestion 2: Size\nHow big?\n1. Small\n2. Large - Costs more\n\n` +
      `Question 3: Regions (one or more, comma-separated)\nWhich regions?\n1. eu\n2. us\n3. ap\n\n${SEVERAL_FOOTER}`;
    expect(renderPromptText([a, b, c])).toBe(text);
    expect(renderTelegramPrompt(record([a, b, c]))).toEqual({ text });
    expect(renderSlackPrompt(record([a, b, c]))).toEqual({ text, blocks: [section(text)] });
  });

  it("never says tap or press without buttons", () => {
    for (const qs of [[a], [c], [a, b], [a, b, c]]) expect(renderPromptText(qs)).not.toMatch(/\b(tap|press)/iu);
  });

  it("asks only for the missing questions, under their original numbers", () => {
    const text = `Thanks! One more answer is needed.\n\nSize\nHow big?\n\n1. Small\n2. Large - Costs more\n\n${SINGLE_FOOTER}`;
    expect(renderMissingPrompt([a, b, c], ["size"])).toBe(text);
    expect(renderTelegramMissingPrompt(record([a, b, c]), ["size"])).toEqual({ text });
    expect(renderMissingPrompt([a, b, c], ["regions", "target"])).toMatch(/^Thanks! 2 more answers are needed\.\n\nQuestion 1: Deployment t\n/u);
    expect(() => renderMissingPrompt([a], ["nope"])).toThrow(/no question matches/u);
    // Question 1 was answered: the rest keep the numbers 2 and 3, and the example names question 2.
    const rest = renderMissingPrompt([a, b, c], [b.id, c.id]);
    expect(rest).toMatch(/^Thanks! 2 more answers are needed\.\n\nQuestion 2: Size\n/u);
    expect(rest).toContain(`\n\nQuestion 3: ${c.header}`);
    expect(rest).toContain('e.g. "2: 2" for option 2 of question 2.');
    expect(rest).not.toMatch(/Question 1:/u);
  });

  it("each platform's prompt in a group says how a typed answer counts there; a direct chat's does not", () => {
    const r = record([a, b]);
    expect(renderTelegramSummary(r, { chat: "group" }).text).toContain(GROUP_REPLY_HINTS.telegram);
    expect(renderDiscordPrompt(record([a]), { chat: "group" }).content).toContain(GROUP_REPLY_HINTS.discord);
    expect(renderSlackPrompt(r, { chat: "group" }).text).toContain("this message's thread");
    expect(renderSlackMissingPrompt(r, [b.id], { chat: "group" }).text).toContain("this message's thread");
    for (const text of [renderTelegramSummary(r, { chat: "direct" }).text, renderDiscordPrompt(record([a])).content, renderSlackPrompt(r).text]) {
      expect(text).not.toMatch(/counts only/u);
    }
  });

  it("says how a typed answer counts in the chat when given a reply hint", () => {
    const hint = "Typed answers count here only as a reply to this message.";
    for (const text of [renderPromptText([a]), renderPromptText([a, b])]) expect(text).not.toContain(hint);
    for (const text of [renderPromptText([a], { replyHint: hint }), renderPromptText([a, b, c], { replyHint: hint }), renderMissingPrompt([a, b, c], [c.id], { replyHint: hint })]) {
      expect(text).toContain(`\n\n${hint}\nNone of these? Reply in your own words.`);
    }
  });
});

describe("4 options with descriptions (buttons)", () => {
  const q = question({
    options: [
      { label: "Staging (Recommended)", description: "Safe to break" },
      { label: "Production", description: "Live traffic" },
      { label: "Canary", description: "5% of traffic" },
      { label: "Nowhere" },
    ],
  });
  const r = record([q]);
  const text =
    "Deployment t\nWhere should this deploy?\n\n1. Staging (Recommended) - Safe to break\n2. Production - Live traffic\n" +
    "3. Canary - 5% of traffic\n4. Nowhere\n\nChoose a button below, or reply in your own words.";

  it("puts the descriptions in the text and the labels on the buttons", () => {
    expect(renderTelegramPrompt(r).text).toBe(text);
    expect(renderDiscordPrompt(r)).toEqual({
      content: text,
      components: [
        {
          type: 1,
          components: [
            dBtn(1, "Staging (Recommended)", "a1|q_123|c|0"),
            dBtn(1, "Production", "a1|q_123|c|1"),
            dBtn(1, "Canary", "a1|q_123|c|2"),
            dBtn(1, "Nowhere", "a1|q_123|c|3"),
          ],
        },
        { type: 1, components: [dBtn(2, "Other…", "a1|q_123|o"), dBtn(2, "Skip", "a1|q_123|s")] },
      ],
      allowed_mentions: { parse: [] },
    });
    expect(renderSlackPrompt(r).blocks[1]).toEqual({
      type: "actions",
      block_id: "ask_user:q_123",
      elements: [
        sBtn("Staging (Recommended)", "a1|q_123|c|0"),
        sBtn("Production", "a1|q_123|c|1"),
        sBtn("Canary", "a1|q_123|c|2"),
        sBtn("Nowhere", "a1|q_123|c|3"),
        sBtn("Other…", "a1|q_123|o"),
        sBtn("Skip", "a1|q_123|s"),
      ],
    });
  });
});
