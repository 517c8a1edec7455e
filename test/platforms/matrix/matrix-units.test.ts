/** The Matrix pieces that need no homeserver: the renderers (plain JSON), the rate gate, the sync token file. */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { MatrixError } from "matrix-js-sdk";
import { describe, expect, it } from "vitest";
import { createRateGate } from "../../../bots/matrix/rate-gate.ts";
import { stripReplyFallback } from "../../../bots/matrix/inbound.ts";
import { createSyncTokenStore } from "../../../bots/matrix/sync-token.ts";
import { matrixEditContent, matrixPollEndContent, renderMatrixPrompt, renderMatrixSummary } from "../../../src/platforms/matrix/payload.ts";
import { toMatrixHtml, toMatrixText } from "../../../src/platforms/matrix/escaping.ts";
import { looksLikeCredential } from "../../../src/parse/credential.ts";
import { question, record } from "../../helpers/records.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";

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

describe("matrix reply fallback", () => {
  it.each([
    ["> <@bot:x> Deploy?\n> 1. Staging\n\n2", "2"],
    ["2", "2"],
    ["> <@bot:x> only a quote", ""],
  ])("%j reads as %j", (body, typed) => {
    expect(stripReplyFallback(body)).toBe(typed);
  });
});

const limited = (ms: number) => new MatrixError({ errcode: "M_LIMIT_EXCEEDED", error: "Too Many Requests", retry_after_ms: ms }, 429);

describe("matrix rate gate", () => {
  it("waits the retry_after_ms asked for, then tries again; another error goes back at once", async () => {
    let clock = 0;
    const waits: number[] = [];
    const gate = createRateGate({ now: () => clock, sleep: async (ms) => void (waits.push(ms), (clock += ms)) });
    let calls = 0;
    expect(await gate.run("send", async () => (++calls < 3 ? Promise.reject(limited(700)) : "ok"))).toBe("ok");
    expect(waits).toEqual([700, 700]);
    await expect(gate.run("send", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });

  it("a wait over 30 s, or refusals for over 5 minutes, go back to the caller (the bridge's retry)", async () => {
    let clock = 0;
    const gate = createRateGate({ now: () => clock, sleep: async (ms) => void (clock += ms) });
    await expect(gate.run("send", () => Promise.reject(limited(60_000)))).rejects.toBeInstanceOf(MatrixError);
    let tries = 0;
    await expect(gate.run("send", () => (tries++, Promise.reject(limited(20_000))))).rejects.toBeInstanceOf(MatrixError);
    expect(tries).toBe(17); // refused at 0, 20 s, … 320 s: past 5 minutes
  });

  it("after a refusal, calls go in single file", async () => {
    let clock = 0;
    const gate = createRateGate({ now: () => clock, sleep: async (ms) => void (clock += ms) });
    await gate.run("send", (() => {
      let first = true;
      return async () => (first ? ((first = false), Promise.reject(limited(5))) : "ok");
    })());
    let inFlight = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        gate.run("send", async () => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
        }),
      ),
    );
    expect(most).toBe(1);
  });
});

describe("matrix sync token", () => {
  it("survives a restart, is written whole (no temporary file left), and belongs to one account", () => {
    const dir = tempDir("aub-mx-token-");
    const store = createSyncTokenStore(dir, "https://hs.example", "@bot:example");
    expect(store.read()).toBeUndefined();
    store.write("s42");
    store.write("s43");
    expect(createSyncTokenStore(dir, "https://hs.example", "@bot:example").read()).toBe("s43");
    expect(readdirSync(dir)).toEqual([store.file.slice(dir.length + 1)]);
    expect(JSON.parse(readFileSync(store.file, "utf8"))).toMatchObject({ user_id: "@bot:example", next_batch: "s43" });
    // Another account (or homeserver) has its own file; a file naming another account is not taken.
    expect(createSyncTokenStore(dir, "https://hs.example", "@other:example").read()).toBeUndefined();
    writeFileSync(store.file, JSON.stringify({ user_id: "@other:example", next_batch: "s1" }));
    expect(store.read()).toBeUndefined();
    writeFileSync(store.file, "{not json");
    expect(store.read()).toBeUndefined();
  });
});

describe("matrix credential shapes", () => {
  it.each([
    ["syt_YWRh_abcdefghijklmnopqrst_0A1b2C", true],
    ["my token is syt_ YWRh_abcdefghijklmnopqrst _0A1b2C", true],
    ["mat_abcdefghijklmnopqrstuvwxyz0123_0A1b2C", true],
    ["sync the syt file", false],
  ])("%j looks like a credential: %s", (text, refused) => {
    expect(looksLikeCredential(text)).toBe(refused);
  });
});
