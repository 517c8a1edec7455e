import { describe, it, expect } from "vitest";
import type { AskUserQuestion } from "../../src/contract/schema.ts";
import { toDiscordContent } from "../../src/platforms/discord/escaping.ts";
import { DISCORD_CONTENT_MAX, renderDiscordPrompt } from "../../src/platforms/discord/payload.ts";
import { toSlackText } from "../../src/platforms/slack/escaping.ts";
import { renderSlackPrompt, SLACK_SECTION_TEXT_MAX } from "../../src/platforms/slack/payload.ts";
import { toTelegramText } from "../../src/platforms/telegram/escaping.ts";
import { renderTelegramPrompt, TELEGRAM_TEXT_MAX } from "../../src/platforms/telegram/payload.ts";
import { question, record as recordOf } from "../helpers/records.ts";

const ZW = "\u200B";

/** One question with `over` applied, in a pending record. */
const record = (over: Partial<AskUserQuestion> = {}) => recordOf([question(over)]);

describe("hostile question text", () => {
  // A hostile question in Telegram's, Discord's and Slack's prompt: each platform's renderers.test.ts.
  it.each([
    ["e-mail kept on Telegram", toTelegramText, "mail ada@example.com", "mail ada@example.com"],
    ["line-start markdown on Discord", toDiscordContent, "# big\n> quote\n- item", "\\# big\n\\> quote\n\\- item"],
    ["@Here in any case", toDiscordContent, "@Here @EVERYONE", `@${ZW}Here @${ZW}EVERYONE`],
    ["@channel on Slack", toSlackText, "@channel a<b", `@${ZW}channel a&lt;b`],
  ])("%s", (_name, fn, input, output) => {
    expect(fn(input)).toBe(output);
  });
});

describe("long labels, at the limits", () => {
  const emoji = "👍🏽"; // one grapheme, four UTF-16 code units
  const emojiLabel = emoji.repeat(64);
  const asciiLabel = "L".repeat(64);

  it("a 64-grapheme ASCII label fits every button whole", () => {
    const r = record({ options: [{ label: asciiLabel }, { label: "Short" }] });
    expect(renderDiscordPrompt(r).components[0]?.components[0]?.label).toBe(asciiLabel);
    const actions = renderSlackPrompt(r).blocks[1];
    expect(actions?.type === "actions" && actions.elements[0]?.text.text).toBe(asciiLabel);
    expect(renderTelegramPrompt(r).reply_markup?.inline_keyboard[0]).toEqual([{ text: asciiLabel, callback_data: "a1|q_123|c|0" }]);
  });

  it("a 64-emoji label is cut to Discord's 80 and Slack's 75, with an ellipsis", () => {
    const r = record({ options: [{ label: emojiLabel }, { label: "Short" }] });
    const discordLabel = renderDiscordPrompt(r).components[0]?.components[0]?.label;
    expect(discordLabel).toBe(`${emoji.repeat(19)}…`); // 77 code units; 20 emoji would be 81
    const actions = renderSlackPrompt(r).blocks[1];
    expect(actions?.type === "actions" && actions.elements[0]?.text.text).toBe(`${emoji.repeat(18)}…`); // 73; 19 would be 77
  });

  it("an overlong question is cut, keeping the reply guidance", () => {
    const r = record({ question: "Why? ".repeat(2000), multiSelect: true });
    const footer =
      "None of these? Reply in your own words.\nPick one or more: reply with numbers or labels, comma-separated (e.g. 1, 2), or your own words.\nReply skip to skip.";
    const telegram = renderTelegramPrompt(r).text;
    expect(telegram.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX);
    expect(telegram.endsWith(`…\n\n${footer}`)).toBe(true);
    expect(renderDiscordPrompt(r).content.length).toBeLessThanOrEqual(DISCORD_CONTENT_MAX);
    expect(renderDiscordPrompt(r).content.endsWith(`…\n\n${footer}`)).toBe(true);
    const slack = renderSlackPrompt(r);
    expect(slack.text.length).toBeLessThanOrEqual(SLACK_SECTION_TEXT_MAX);
    expect(slack.text.endsWith(`…\n\n${footer}`)).toBe(true);
  });
});
