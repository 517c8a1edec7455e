import { describe, it, expect } from "vitest";
import { decodeDiscordCustomId } from "../../src/platforms/discord/callback-data.ts";
import { decodeSlackModalMetadata, encodeSlackModalMetadata, renderSlackOtherModal, slackModalAnswer } from "../../src/platforms/slack/modal.ts";
import { renderDiscordOtherModal } from "../../src/platforms/discord/modal.ts";

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
