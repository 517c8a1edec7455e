/** Matrix's renderers: polls and messages as plain JSON, escaping (the approval and late cases moved from test/render/). */
import { describe, expect, it } from "vitest";
import { toMatrixHtml, toMatrixText } from "../../../src/platforms/matrix/escaping.ts";
import { matrixEditContent, matrixPollEndContent, renderMatrixPrompt, renderMatrixSummary, type MatrixMessageContent } from "../../../src/platforms/matrix/payload.ts";
import { approval, expiredLateOpen as expired, HOSTILE_COMMAND, LATE, SHORT } from "../../fixtures/render-records.ts";
import { LATE_OPEN_SUMMARY } from "../../../src/render/index.ts";
import { question, record } from "../../helpers/records.ts";

const FOOTER = "None of these? Reply in your own words.\nReply with a number, a label, or your own words.\nReply skip to skip.";
const numbered = "Deployment t\nWhere should this deploy?\n\n1. Staging (Recommended)\n2. Production\n\n" + FOOTER;

describe("matrix renderers", () => {
  it("the one single-select question: a poll, its answers carrying the callback, the numbered text as fallback", () => {
    expect(renderMatrixPrompt(record([question()]))).toEqual({
      type: "org.matrix.msc3381.poll.start",
      content: {
        "org.matrix.msc3381.poll.start": {
          question: { "org.matrix.msc1767.text": "Deployment t: Where should this deploy?", body: "Deployment t: Where should this deploy?", msgtype: "m.text" },
          kind: "org.matrix.msc3381.poll.disclosed",
          max_selections: 1,
          answers: [
            { id: "a1|q_123|c|0", "org.matrix.msc1767.text": "Staging (Recommended)" },
            { id: "a1|q_123|c|1", "org.matrix.msc1767.text": "Production" },
            { id: "a1|q_123|o", "org.matrix.msc1767.text": "Other…" },
            { id: "a1|q_123|s", "org.matrix.msc1767.text": "Skip" },
          ],
        },
        "org.matrix.msc1767.text": numbered,
        body: numbered,
        msgtype: "m.text",
        "m.mentions": {},
      },
    });
  });

  it("a multi-select question: numbered text with its escaped HTML, and the room's hint in a group", () => {
    const prompt = renderMatrixPrompt(record([question({ multiSelect: true })]), { chat: "group" });
    expect(prompt.type).toBe("m.room.message");
    expect(prompt.content).toMatchObject({ msgtype: "m.text", format: "org.matrix.custom.html", "m.mentions": {} });
    expect(prompt.content.body).toContain("In this room, a typed answer counts only as a reply to this message or in its thread.");
    expect((prompt.content as { formatted_body: string }).formatted_body).toBe(toMatrixHtml(prompt.content.body));
  });

  it("once answered: the poll keeps its type with the summary as question and fallback, and is ended", () => {
    const answered = record([question()], { status: "answered", answers: { target: ["Production"] }, resolvedAtMs: 1, by: { surface: "matrix", user: "@ada:x", userName: "Ada", via: "button" } });
    const copy = renderMatrixSummary(answered, { nowMs: 2 });
    expect(copy.pollEnded).toBe(true);
    expect(copy.prompt.type).toBe("org.matrix.msc3381.poll.start");
    expect(copy.prompt.content.body).toMatch(/^✅ Deployment t: Production/u);
    expect(matrixEditContent("$p", copy.prompt)).toMatchObject({ body: `* ${copy.prompt.content.body}`, "m.new_content": copy.prompt.content, "m.relates_to": { rel_type: "m.replace", event_id: "$p" } });
    expect(matrixPollEndContent("$p", "done")).toEqual({
      "m.relates_to": { rel_type: "m.reference", event_id: "$p" },
      "org.matrix.msc3381.poll.end": {},
      "org.matrix.msc1767.text": "done",
      body: "done",
      msgtype: "m.text",
      "m.mentions": {},
    });
  });

  it.each([
    ["@room, look", "@\u200Broom, look"],
    ["ask @ada:example.org", "ask @\u200Bada:example.org"],
    ["mail ada@example.org", "mail ada@example.org"],
  ])("toMatrixText(%j)", (input, output) => {
    expect(toMatrixText(input)).toBe(output);
  });

  it("toMatrixHtml escapes what could start a tag, an entity or an attribute", () => {
    expect(toMatrixHtml(`<a href="x">'&'</a>\nnext`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;<br>next");
  });
});

describe("a late copy offers no Skip (a late skip is refused)", () => {
  it("Matrix: the poll's answers and its numbered fallback", () => {
    const { nowMs: now, c0, c1, other } = LATE;
    const fallback = `${LATE_OPEN_SUMMARY}\n\nDeployment t\nWhere should this deploy?\n\n1. Staging (Recommended)\n2. Production\n\nNone of these? Reply in your own words.\nReply with a number, a label, or your own words.`;
    const pollQuestion = `${LATE_OPEN_SUMMARY}\nDeployment t: Where should this deploy?`;
    expect(renderMatrixSummary(expired, { nowMs: now })).toEqual({
      prompt: {
        type: "org.matrix.msc3381.poll.start",
        content: {
          "org.matrix.msc3381.poll.start": {
            question: { "org.matrix.msc1767.text": pollQuestion, body: pollQuestion, msgtype: "m.text" },
            kind: "org.matrix.msc3381.poll.disclosed",
            max_selections: 1,
            answers: [
              { id: c0, "org.matrix.msc1767.text": "Staging (Recommended)" },
              { id: c1, "org.matrix.msc1767.text": "Production" },
              { id: other, "org.matrix.msc1767.text": "Other…" },
            ],
          },
          "org.matrix.msc1767.text": fallback,
          body: fallback,
          msgtype: "m.text",
          "m.mentions": {},
        },
      },
      pollEnded: false,
    });
  });
});

describe("an approval's code block", () => {
  it("matrix: the HTML holds the subject escaped in <pre><code>, the body as text", () => {
    const c = renderMatrixPrompt(approval({ input: { command: HOSTILE_COMMAND } })).content as MatrixMessageContent;
    expect(c.formatted_body).not.toContain("<script>");
    expect(c.formatted_body).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(c.body).toContain("<script>alert(1)</script>");
  });

  it("matrix: the summary of an approval stays a message (an edit keeps the event type)", () => {
    const r = { ...approval(SHORT), status: "answered" as const, answers: { approval: ["Deny"] }, resolvedAtMs: 1 };
    expect(renderMatrixSummary(r).prompt.type).toBe("m.room.message");
  });
});
