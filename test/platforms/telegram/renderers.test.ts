/** Telegram's renderers: plain JSON for the Bot API (moved from test/render/render*.test.ts). */
import { describe, expect, it } from "vitest";
import { decodeDiscordCustomId } from "../../../src/platforms/discord/callback-data.ts";
import { decodeTelegramCallbackData } from "../../../src/platforms/telegram/callback-data.ts";
import { renderTelegramPrompt, renderTelegramSummary } from "../../../src/platforms/telegram/payload.ts";
import { approval, expiredLateOpen as expired, hostileAnswered as hostile, LATE } from "../../fixtures/render-records.ts";
import { question, record } from "../../helpers/records.ts";

const ZW = "\u200B";
const tg = (text: string, data: string) => [{ text, callback_data: data }];

describe("one single-select question (buttons)", () => {
  const r = record([question()]);
  const text = "Deployment t\nWhere should this deploy?\n\nChoose a button below, or reply in your own words.";

  it("Telegram: one full-width row per button, no parse_mode", () => {
    expect(renderTelegramPrompt(r)).toEqual({
      text,
      reply_markup: {
        inline_keyboard: [
          tg("Staging (Recommended)", "a1|q_123|c|0"),
          tg("Production", "a1|q_123|c|1"),
          tg("Other…", "a1|q_123|o"),
          tg("Skip", "a1|q_123|s"),
        ],
      },
    });
  });
});

describe("hostile question text", () => {
  const r = record([
    question({
      header: "@here <b>",
      question: "Ping @everyone and <!channel> or <@U123> then <script>alert(1)</script> & *bold* [x](https://evil)",
      options: [{ label: "<!here> yes", description: "@everyone > all" }, { label: "No & never" }],
    }),
  ]);
  const footer = "Choose a button below, or reply in your own words.";

  it("Telegram: no parse_mode, and no @mention forms", () => {
    expect(renderTelegramPrompt(r).text).toBe(
      `@${ZW}here <b>\nPing @${ZW}everyone and <!channel> or <@${ZW}U123> then <script>alert(1)</script> & *bold* [x](https://evil)\n\n` +
        `1. <!here> yes - @${ZW}everyone > all\n2. No & never\n\n${footer}`,
    );
  });
});

describe("callback data", () => {
  it("Telegram counts bytes: a string over 64 bytes is refused", () => {
    expect(decodeTelegramCallbackData(`a1|${"x".repeat(59)}|s`)).toEqual({ questionId: "x".repeat(59), action: { kind: "skip" } });
    expect(decodeTelegramCallbackData(`a1|${"x".repeat(60)}|s`)).toBeNull();
    expect(decodeDiscordCustomId(`a1|${"x".repeat(60)}|s`)).not.toBeNull();
  });
});

describe("platform summaries", () => {
  it("Telegram: plain text, keyboard removed", () => {
    expect(renderTelegramSummary(hostile)).toEqual({
      text: `✅ Deployment t: “<!channel> @${ZW}everyone *ship* it & run <script>” — answered in Telegram by @${ZW}here`,
      reply_markup: { inline_keyboard: [] },
    });
  });
});

describe("a late copy offers no Skip (a late skip is refused)", () => {
  it("the pending prompt still has Skip", () => {
    expect(renderTelegramPrompt(record([question()])).reply_markup?.inline_keyboard.at(-1)).toEqual([{ text: "Skip", callback_data: "a1|q_123|s" }]);
  });

  it("Telegram", () => {
    const { nowMs: now, text, c0, c1, other } = LATE;
    expect(renderTelegramSummary(expired, { nowMs: now })).toEqual({
      text,
      reply_markup: { inline_keyboard: [[{ text: "Staging (Recommended)", callback_data: c0 }], [{ text: "Production", callback_data: c1 }], [{ text: "Other…", callback_data: other }]] },
    });
  });
});

describe("an approval's code block", () => {
  it("telegram: the pre entity covers exactly the subject, in UTF-16 code units", () => {
    const m = renderTelegramPrompt(approval({ input: { command: "echo 😀 done" } }));
    const pre = m.entities![0]!;
    expect(m.text.slice(pre.offset, pre.offset + pre.length)).toBe("Command:\necho 😀 done");
    expect(m.text.slice(0, pre.offset)).toBe("Bash\nClaude Code wants to run a command.\n\n");
  });
});
