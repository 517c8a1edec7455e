/** Discord's renderers: plain JSON for the REST API, and the Other… modal (moved from test/render/render*.test.ts). */
import { describe, expect, it } from "vitest";
import { decodeDiscordCustomId } from "../../../src/platforms/discord/callback-data.ts";
import { renderDiscordOtherModal } from "../../../src/platforms/discord/modal.ts";
import { renderDiscordPrompt, renderDiscordSummary } from "../../../src/platforms/discord/payload.ts";
import { expiredLateOpen as expired, hostileAnswered as hostile, LATE } from "../../fixtures/render-records.ts";
import { question, record } from "../../helpers/records.ts";

const ZW = "\u200B";
const dBtn = (style: 1 | 2, label: string, custom_id: string) => ({ type: 2, style, label, custom_id });

describe("one single-select question (buttons)", () => {
  const r = record([question()]);
  const text = "Deployment t\nWhere should this deploy?\n\nChoose a button below, or reply in your own words.";

  it("Discord: options row, then Other… and Skip", () => {
    expect(renderDiscordPrompt(r)).toEqual({
      content: text,
      components: [
        { type: 1, components: [dBtn(1, "Staging (Recommended)", "a1|q_123|c|0"), dBtn(1, "Production", "a1|q_123|c|1")] },
        { type: 1, components: [dBtn(2, "Other…", "a1|q_123|o"), dBtn(2, "Skip", "a1|q_123|s")] },
      ],
      allowed_mentions: { parse: [] },
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

  it("Discord: markdown escaped, @everyone/@here broken, allowed_mentions empty", () => {
    const message = renderDiscordPrompt(r);
    expect(message.content).toBe(
      `@${ZW}here \\<b>\nPing @${ZW}everyone and \\<!channel> or \\<@U123> then \\<script>alert(1)\\</script> & \\*bold\\* \\[x\\](https://evil)\n\n` +
        `1. \\<!here> yes - @${ZW}everyone > all\n2. No & never\n\n${footer}`,
    );
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.components[0]?.components.map((b) => b.label)).toEqual(["<!here> yes", "No & never"]);
  });
});

describe("platform summaries", () => {
  it("Discord: escaped content, components removed, no mentions", () => {
    expect(renderDiscordSummary(hostile)).toEqual({
      content: `✅ Deployment t: “\\<!channel> @${ZW}everyone \\*ship\\* it & run \\<script>” — answered in Telegram by @${ZW}here`,
      components: [],
      allowed_mentions: { parse: [] },
    });
  });
});

describe("a late copy offers no Skip (a late skip is refused)", () => {
  it("Discord", () => {
    const { nowMs: now, text, c0, c1, other } = LATE;
    expect(renderDiscordSummary(expired, { nowMs: now })).toEqual({
      content: text,
      components: [
        { type: 1, components: [{ type: 2, style: 1, label: "Staging (Recommended)", custom_id: c0 }, { type: 2, style: 1, label: "Production", custom_id: c1 }] },
        { type: 1, components: [{ type: 2, style: 2, label: "Other…", custom_id: other }] },
      ],
      allowed_mentions: { parse: [] },
    });
  });
});

const request = { questionId: "q_123", title: "Your answer", label: "Where should this deploy?" };

describe("the Discord Other… modal", () => {
  it("is one required paragraph input, under the Other… button's custom_id", () => {
    const modal = renderDiscordOtherModal(request);
    expect(modal).toEqual({
      custom_id: "a1|q_123|o",
      title: "Your answer",
      components: [
        {
          type: 18,
          label: "Where should this deploy?",
          component: { type: 4, custom_id: "answer", style: 2, required: true, max_length: 4000 },
        },
      ],
    });
    expect(decodeDiscordCustomId(modal.custom_id)).toEqual({ questionId: "q_123", action: { kind: "other" } });
  });

  it.each([
    ["a long title and label are cut to 45", { title: "t".repeat(60), label: "l".repeat(60) }, "t".repeat(45), "l".repeat(45)],
    ["an empty label falls back", { label: "" }, "Your answer", "Your answer"],
  ])("%s", (_name, over, title, label) => {
    const modal = renderDiscordOtherModal({ ...request, ...over });
    expect([modal.title, modal.components[0]!.label]).toEqual([title, label]);
  });
});
