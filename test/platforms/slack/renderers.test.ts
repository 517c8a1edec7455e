/** Slack's renderers: Block Kit as plain JSON, escaping, and the Other… modal (moved from test/render/render*.test.ts). */
import { describe, expect, it } from "vitest";
import { slackTextToPlain } from "../../../src/platforms/slack/escaping.ts";
import { decodeSlackModalMetadata, encodeSlackModalMetadata, renderSlackOtherModal, slackModalAnswer } from "../../../src/platforms/slack/modal.ts";
import { renderSlackPrompt, renderSlackSummary, SLACK_SECTION_TEXT_MAX } from "../../../src/platforms/slack/payload.ts";
import { approval, expiredLateOpen as expired, HOSTILE_COMMAND, hostileAnswered as hostile, LATE } from "../../fixtures/render-records.ts";
import { question, record } from "../../helpers/records.ts";

const ZW = "\u200B";
const sBtn = (text: string, id: string) => ({ type: "button", text: { type: "plain_text", text, emoji: true }, action_id: id, value: id });
const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text, verbatim: true } });

describe("one single-select question (buttons)", () => {
  const r = record([question()]);
  const text = "Deployment t\nWhere should this deploy?\n\nChoose a button below, or reply in your own words.";

  it("Slack: a section and one actions block", () => {
    expect(renderSlackPrompt(r)).toEqual({
      text,
      blocks: [
        section(text),
        {
          type: "actions",
          block_id: "ask_user:q_123",
          elements: [
            sBtn("Staging (Recommended)", "a1|q_123|c|0"),
            sBtn("Production", "a1|q_123|c|1"),
            sBtn("Other…", "a1|q_123|o"),
            sBtn("Skip", "a1|q_123|s"),
          ],
        },
      ],
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
});

describe("long labels, at the limits", () => {
  const emoji = "👍🏽"; // one grapheme, four UTF-16 code units

  it("Slack counts the escaped length of a label", () => {
    const r = record([question({ options: [{ label: "&".repeat(64) }, { label: "Short" }] })]);
    const actions = renderSlackPrompt(r).blocks[1];
    expect(actions?.type === "actions" && actions.elements[0]?.text.text).toBe(`${"&amp;".repeat(14)}…`);
  });

  it("cuts never split a grapheme, even when escaping grows the text", () => {
    const r = record([question({ question: `${emoji}<`.repeat(1500) })]);
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

describe("platform summaries", () => {
  it("Slack: escaped section, no actions block", () => {
    const text = `✅ Deployment t: “&lt;!channel&gt; @${ZW}everyone *ship* it &amp; run &lt;script&gt;” — answered in Telegram by @${ZW}here`;
    expect(renderSlackSummary(hostile)).toEqual({ text, blocks: [{ type: "section", text: { type: "mrkdwn", text, verbatim: true } }] });
  });
});

describe("a late copy offers no Skip (a late skip is refused)", () => {
  it("Slack", () => {
    const { nowMs: now, text, c0, c1, other } = LATE;
    const button = (label: string, id: string) => ({ type: "button", text: { type: "plain_text", text: label, emoji: true }, action_id: id, value: id });
    expect(renderSlackSummary(expired, { nowMs: now })).toEqual({
      text,
      blocks: [
        { type: "section", text: { type: "mrkdwn", text, verbatim: true } },
        { type: "actions", block_id: "ask_user:q_123", elements: [button("Staging (Recommended)", c0), button("Production", c1), button("Other…", other)] },
      ],
    });
  });
});

describe("an approval's code block", () => {
  it("slack: the subject is literal rich text; no section holds it unescaped", () => {
    const m = renderSlackPrompt(approval({ input: { command: HOSTILE_COMMAND } }));
    for (const b of m.blocks) if (b.type === "section") expect(b.text.text).not.toContain("<script>");
  });
});

const request = { questionId: "q_123", title: "Your answer", label: "Where should this deploy?" };

describe("the Slack Other… modal", () => {
  const context = { questionId: "q_123", chat: "U0ADA", channel: "D0ADA" };

  it("is one multiline input; private_metadata names the question, its chat and the channel", () => {
    expect(renderSlackOtherModal(request, context)).toEqual({
      type: "modal",
      callback_id: "ask_user_other",
      private_metadata: '{"q":"q_123","c":"U0ADA","ch":"D0ADA"}',
      title: { type: "plain_text", text: "Your answer" },
      submit: { type: "plain_text", text: "Submit" },
      close: { type: "plain_text", text: "Cancel" },
      blocks: [
        {
          type: "input",
          block_id: "answer",
          label: { type: "plain_text", text: "Where should this deploy?" },
          element: { type: "plain_text_input", action_id: "answer", multiline: true, max_length: 2000 },
        },
      ],
    });
  });

  it.each([
    ["a long title is cut to 24 with an ellipsis", { title: "t".repeat(30) }, `${"t".repeat(23)}…`, "Where should this deploy?"],
    ["an empty label falls back", { label: "" }, "Your answer", "Your answer"],
    ["a long label is cut to 2000", { label: "l".repeat(2500) }, "Your answer", `${"l".repeat(1999)}…`],
  ])("%s", (_name, over, title, label) => {
    const view = renderSlackOtherModal({ ...request, ...over }, context);
    expect([view.title.text, view.blocks[0]!.label.text]).toEqual([title, label]);
  });

  it("metadata round-trips, and metadata over Slack's 3000 characters is a programmer error", () => {
    expect(decodeSlackModalMetadata(encodeSlackModalMetadata(context))).toEqual(context);
    expect(() => encodeSlackModalMetadata({ ...context, questionId: "q".repeat(3000) })).toThrow(/private_metadata/);
  });

  it.each([undefined, "", "{", "null", "[]", '{"q":1,"c":"C","ch":"C"}', '{"q":"q1","c":"","ch":"C"}', "x".repeat(4000)])(
    "decodeSlackModalMetadata(%j) is null, never a throw",
    (input) => {
      expect(decodeSlackModalMetadata(input)).toBeNull();
    },
  );

  it.each([
    [{ answer: { answer: { value: "Tuesday" } } }, "Tuesday"],
    [{ answer: { answer: { value: null } } }, ""],
    [{}, ""],
    [undefined, ""],
  ])("slackModalAnswer(%j) = %j", (values, expected) => {
    expect(slackModalAnswer(values)).toBe(expected);
  });
});
