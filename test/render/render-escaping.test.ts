import { describe, it, expect } from "vitest";
import type { AskUserQuestion } from "../../src/contract/schema.ts";
import { DISCORD_CONTENT_MAX, renderDiscordPrompt } from "../../src/platforms/discord/payload.ts";
import { renderSlackPrompt, SLACK_SECTION_TEXT_MAX } from "../../src/platforms/slack/payload.ts";
import { renderTelegramPrompt, TELEGRAM_TEXT_MAX } from "../../src/platforms/telegram/payload.ts";
import { slackTextToPlain, toSlackText } from "../../src/platforms/slack/escaping.ts";
import { toDiscordContent } from "../../src/platforms/discord/escaping.ts";
import { toTelegramText } from "../../src/platforms/telegram/escaping.ts";
import { question, record as recordOf } from "../helpers/records.ts";

const ZW = "\u200B";

/** One question with `over` applied, in a pending record. */
const record = (over: Partial<AskUserQuestion> = {}) => recordOf([question(over)]);

describe("hostile question text", () => {
  const r = record({
    header: "@here <b>",
    question: "Ping @everyone and <!channel> or <@U123> then <script>alert(1)</script> & *bold* [x](https://evil)",
    options: [{ label: "<!here> yes", description: "@everyone > all" }, { label: "No & never" }],
  });
  const footer = "Choose a button below, or reply in your own words.";

  it("Telegram: no parse_mode, and no @mention forms", () => {
    expect(renderTelegramPrompt(r).text).toBe(
      `@${ZW}here <b>\nPing @${ZW}everyone and <!channel> or <@${ZW}U123> then <script>alert(1)</script> & *bold* [x](https://evil)\n\n` +
        `1. <!here> yes - @${ZW}everyone > all\n2. No & never\n\n${footer}`,
    );
  });

  it("Discord: markdown escaped, @everyone/@here broken, allowed_mentions empty", () => {
    const message = renderDiscordPrompt(r);
    expect(message.content).toBe(
      `@${ZW}here \\<b>\nPing @${ZW}everyone and \\<!channel> or \\<@U123> then \\<script>alert(1)\\</script> & \\*bold\\* \\[x\\](https://evil)\n\n` +
        `1. \\<!here> yes - @${ZW}everyone > all\n2. No & never\n\n${footer}`,
    );
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.components[0]?.components.map((b) => b.label)).toEqual(["<!here> yes", "No & never"]);
  });

  it("Slack: <, > and & escaped in the text, the section and the buttons", () => {
    const text =
      `@${ZW}here &lt;b&gt;\nPing @${ZW}everyone and &lt;!channel&gt; or &lt;@U123&gt; then &lt;script&gt;alert(1)&lt;/script&gt; &amp; *bold* [x](https://evil)\n\n` +
      `1. &lt;!here&gt; yes - @${ZW}everyone &gt; all\n2. No &amp; never\n\n${footer}`;
    const message = renderSlackPrompt(r);
    expect(message.text).toBe(text);
    expect(message.blocks[0]).toEqual({ type: "section", text: { type: "mrkdwn", text, verbatim: true } });
    const actions = message.blocks[1];
    expect(actions?.type === "actions" && actions.elements.map((b) => b.text.text)).toEqual(["&lt;!here&gt; yes", "No &amp; never", "Other…", "Skip"]);
  });

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

  it("Slack counts the escaped length of a label", () => {
    const r = record({ options: [{ label: "&".repeat(64) }, { label: "Short" }] });
    const actions = renderSlackPrompt(r).blocks[1];
    expect(actions?.type === "actions" && actions.elements[0]?.text.text).toBe(`${"&amp;".repeat(14)}…`);
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

  it("cuts never split a grapheme, even when escaping grows the text", () => {
    const r = record({ question: `${emoji}<`.repeat(1500) });
    const slack = renderSlackPrompt(r).text;
    expect(slack.length).toBeLessThanOrEqual(SLACK_SECTION_TEXT_MAX);
    expect(slack).toMatch(/^Deployment t\n(👍🏽&lt;)+(👍🏽)?…\n\n/u);
  });
});

describe("Slack's markup back to what the person typed", () => {
  it.each([
    ["plain", "plain"],
    ["a &amp; b &lt;c&gt;", "a & b <c>"],
    ["see <https://x.example/a?b=1&amp;c=2|the plan>", "see the plan"],
    ["<https://x.example>", "https://x.example"],
    ["<mailto:ada@x.example|ada@x.example>", "ada@x.example"],
    ["for <@U0GRACE> and <@U0ADA|ada>", "for @U0GRACE and @ada"],
    ["in <#C0CHAT1|general> or <#C0CHAT2>", "in #general or #C0CHAT2"],
    ["<!here> <!channel> <!subteam^S123|@ops>", "@here @channel @ops"],
    ["&amp;lt; stays literal", "&lt; stays literal"],
  ])("slackTextToPlain(%j) = %j", (input, expected) => {
    expect(slackTextToPlain(input)).toBe(expected);
  });
});
