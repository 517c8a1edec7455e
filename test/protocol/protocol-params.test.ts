/**
 * Issue 24, the protocol's part (parseParams in src/protocol/methods.ts, GatewayError in src/kernel/errors.ts):
 *
 * - item 10: a U+0000 in any string of any method's params is INVALID_PARAMS at its path. PostgreSQL cannot store
 *   one, so a NUL in a runId, a chat, a typed reply or a list filter used to be INTERNAL there.
 * - item 6: an error lists at most 20 issues, then "and N more", in `issues` and in the message; every error body is
 *   at most 16 KiB with its frame, its texts cut; and finding the problems costs a cheap scan, not work per item.
 */
import { describe, expect, it } from "vitest";
import { MAX_ISSUES } from "../../src/kernel/issues.ts";
import { ERROR_RESPONSE_MAX_BYTES, GatewayError } from "../../src/kernel/errors.ts";
import { encodeListCursor } from "../../src/protocol/list-filter.ts";
import { parseParams, parseSubscribeParams, type MethodName } from "../../src/protocol/methods.ts";

const NUL = "\u0000";
const ask = { id: "a", header: "H", question: "Q?", options: [{ label: "A" }, { label: "B" }] };
const by = { surface: "telegram", chat: "1", user: "ada" };
const base64url = (text: string) => Buffer.from(text).toString("base64url");

function invalidParams(method: MethodName, params: unknown): GatewayError {
  try {
    parseParams(method, params);
  } catch (error) {
    if (error instanceof GatewayError && error.code === "INVALID_PARAMS") return error;
    throw error;
  }
  throw new Error(`expected INVALID_PARAMS for ${method} ${JSON.stringify(params).slice(0, 200)}`);
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("U+0000 in any string parameter (issue 24 item 10)", () => {
  it.each<[MethodName, Record<string, unknown>, string]>([
    ["question.request", { questions: [ask], runId: `run${NUL}` }, "runId"],
    ["question.request", { questions: [ask], sessionKey: `s${NUL}` }, "sessionKey"],
    ["question.request", { questions: [ask], targets: [{ surface: "telegram", chat: `1${NUL}` }] }, "targets[0].chat"],
    ["question.request", { questions: [ask], targets: [{ surface: "telegram", chat: "1", users: ["ada", `b${NUL}b`] }] }, "targets[0].users[1]"],
    ["question.request", { questions: [ask], escalate: [{ afterSeconds: 60, targets: [{ surface: "slack", chat: `C${NUL}` }] }] }, "escalate[0].targets[0].chat"],
    ["question.request", { questions: [{ ...ask, header: `H${NUL}` }] }, "questions[0].header"],
    ["question.request", { questions: [{ ...ask, question: `Q${NUL}?` }] }, "questions[0].question"],
    ["question.request", { questions: [{ ...ask, options: [{ label: "A" }, { label: `B${NUL}` }] }] }, "questions[0].options[1].label"],
    ["question.request", { questions: [{ ...ask, options: [{ label: "A", description: NUL }, { label: "B" }] }] }, "questions[0].options[0].description"],
    ["question.reply", { id: "q1", text: `2${NUL}` }, "text"],
    ["question.reply", { id: "q1", text: "2", by: { ...by, user: `a${NUL}` } }, "by.user"],
    ["question.reply", { id: "q1", text: "2", by: { ...by, userName: `Ada${NUL}` } }, "by.userName"],
    ["question.reply", { id: "q1", text: "2", by, messageRef: `m${NUL}` }, "messageRef"],
    ["question.resolve", { id: "q1", answers: { a: `x${NUL}` } }, "answers.a"],
    ["question.resolve", { id: "q1", answers: { a: ["ok", `x${NUL}`] } }, "answers.a[1]"],
    ["question.resolve", { id: "q1", answers: { a: "x" }, by: { ...by, chat: NUL } }, "by.chat"],
    ["question.resolve", { id: `q1${NUL}`, cancel: true }, "id"],
    ["question.get", { id: `q${NUL}` }, "id"],
    ["question.waitAnswer", { id: `q${NUL}` }, "id"],
    ["question.list", { runId: `r${NUL}` }, "runId"],
    ["question.list", { sessionKey: `s${NUL}` }, "sessionKey"],
    ["question.list", { chat: `c${NUL}` }, "chat"],
    ["question.delivered", { id: "q1", surface: "telegram", chat: "1", messageRef: `m${NUL}` }, "messageRef"],
    ["question.delivered", { id: "q1", surface: "telegram", chat: "1", messageRef: "m", rendered: `v${NUL}` }, "rendered"],
    ["question.deliveryFailed", { id: "q1", surface: "telegram", chat: "1", reason: `r${NUL}` }, "reason"],
    ["question.claimDelivery", { id: "q1", surface: "telegram", chat: "1", claimant: `bot${NUL}` }, "claimant"],
    ["question.copyRendered", { id: "q1", surface: "telegram", chat: `1${NUL}`, rendered: "v1" }, "chat"],
    ["question.reminderSent", { id: "q1", surface: "telegram", chat: "1", offsetSeconds: 60, messageRef: `m${NUL}` }, "messageRef"],
    ["run.abort", { runId: `r${NUL}` }, "runId"],
  ])("%s: %j is refused at %s", (method, params, path) => {
    const error = invalidParams(method, params);
    expect(error.issues).toEqual([{ path, message: "must not contain U+0000 (NUL)" }]);
    expect(error.message).toBe(`invalid params for ${method}: ${path}: must not contain U+0000 (NUL)`);
  });

  it("a NUL in a field name (an answer's question id) is refused at the object holding it", () => {
    expect(invalidParams("question.resolve", { id: "q1", answers: { [`a${NUL}`]: "x" } }).issues).toEqual([
      { path: "answers", message: "a field name must not contain U+0000 (NUL)" },
    ]);
  });

  it.each([
    ["a raw NUL", `abc${NUL}`],
    ["a well-formed cursor whose id holds a NUL", base64url(JSON.stringify({ v: 1, t: 1, id: `q${NUL}` }))],
  ])("a list cursor with %s is not a nextCursor", (_name, cursor) => {
    expect(invalidParams("question.list", { cursor }).issues).toEqual([{ path: "cursor", message: expect.stringMatching(/is not a nextCursor/) }]);
    expect(parseParams("question.list", { cursor: encodeListCursor({ createdAtMs: 1, id: "q1" }) }).cursor).toEqual({ createdAtMs: 1, id: "q1" });
  });

  it("every NUL is named, in the order they appear", () => {
    expect(invalidParams("question.request", { questions: [ask], runId: NUL, sessionKey: NUL, targets: [{ surface: "web", users: [NUL] }] }).issues!.map((i) => i.path)).toEqual([
      "runId",
      "sessionKey",
      "targets[0].users[0]",
    ]);
  });

  it("text without a NUL is taken as it is, other control characters included", () => {
    expect(parseParams("question.reply", { id: "q1", text: "line\u0001\ttwo\u007f" }).text).toBe("line\u0001\ttwo\u007f");
  });

  it("questions nested 200,000 deep are walked without running out of stack", () => {
    const deep = JSON.parse(`${"[".repeat(200_000)}"${"\\u0000"}"${"]".repeat(200_000)}`);
    const error = invalidParams("question.request", { questions: deep });
    expect(error.issues![0]!.path.startsWith("questions[0][0]")).toBe(true);
    expect(bytesOf(error.toBody())).toBeLessThan(ERROR_RESPONSE_MAX_BYTES);
  });
});

describe("bounded errors (issue 24 item 6)", () => {
  const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]));
  const timed = <T>(work: () => T): [T, number] => {
    const started = performance.now();
    const result = work();
    return [result, performance.now() - started];
  };

  it.each<[string, MethodName, unknown, string]>([
    ["in the params", "question.request", { questions: [ask], ...keys(80_000) }, "k"],
    ["in a target", "question.request", { questions: [ask], targets: [{ surface: "web", ...keys(80_000) }] }, "targets[0].k"],
    ["in by", "question.reply", { id: "q1", text: "1", by: { surface: "telegram", ...keys(80_000) } }, "by.k"],
    ["in the list filter", "question.list", keys(80_000), "k"],
  ])("80,000 unknown fields %s: 20 issues, then “and 79980 more”, in a small body, quickly", (_name, method, params, prefix) => {
    const [error, ms] = timed(() => invalidParams(method, params));
    const listed = Array.from({ length: MAX_ISSUES }, (_, i) => ({ path: `${prefix}${i}`, message: "unknown field" }));
    expect(error.issues).toEqual([...listed, { path: "", message: "and 79980 more" }]);
    expect(error.message).toBe(`invalid params for ${method}: ${listed.map((i) => `${i.path}: unknown field`).join("; ")}; and 79980 more`);
    expect(bytesOf(error.toBody())).toBeLessThan(4 * 1024);
    expect(ms).toBeLessThan(300);
  });

  it.each<[string, MethodName, unknown, string, string | RegExp]>([
    // zod checks an array's length before it reads the items; a record it reads entry by entry, so its count is checked first.
    ["300,000 targets", "question.request", { questions: [ask], targets: Array.from({ length: 300_000 }, () => ({})) }, "targets", /<=20 items/],
    ["300,000 users", "question.request", { questions: [ask], targets: [{ surface: "web", users: Array.from({ length: 300_000 }, () => 1) }] }, "targets[0].users", /<=100 items/],
    ["300,000 reminders", "question.request", { questions: [ask], reminders: Array.from({ length: 300_000 }, () => "x") }, "reminders", /<=5 items/],
    ["300,000 escalation steps", "question.request", { questions: [ask], escalate: Array.from({ length: 300_000 }, () => ({})) }, "escalate", /<=3 items/],
    ["80,000 answers", "question.resolve", { id: "q1", answers: keys(80_000) }, "answers", "must have at most 64 entries (got 80000)"],
  ])("%s are refused by their count, their items unread", (_name, method, params, path, message) => {
    const [error, ms] = timed(() => invalidParams(method, params));
    expect(error.issues).toEqual([{ path, message: typeof message === "string" ? message : expect.stringMatching(message) }]);
    expect(ms).toBeLessThan(100);
  });

  it("a few unknown fields are still zod's, listed with the other problems; far too many are counted without reading the rest", () => {
    expect(invalidParams("question.get", { id: 5, a: 1, b: 2 }).issues).toEqual([
      { path: "id", message: expect.any(String) },
      { path: "a", message: "unknown field" },
      { path: "b", message: "unknown field" },
    ]);
    const wide = invalidParams("question.get", { id: 5, ...keys(MAX_ISSUES + 1) }).issues!;
    expect(wide).toEqual([...Array.from({ length: MAX_ISSUES }, (_, i) => ({ path: `k${i}`, message: "unknown field" })), { path: "", message: "and 1 more" }]);
  });

  it.each<[string, unknown, Array<{ path: string; message: unknown }>]>([
    ["an answer that is not a record", { id: "q1", answers: 5 }, [{ path: "answers", message: expect.any(String) }]],
    ["a bad cancel reason", { id: "q1", cancel: true, reason: "bored" }, [{ path: "reason", message: expect.any(String) }]],
    ["neither answers nor cancel", { id: "q1" }, [{ path: "answers", message: expect.any(String) }]],
  ])("question.resolve names the problem of the shape it comes closest to: %s", (_name, params, issues) => {
    expect(invalidParams("question.resolve", params).issues).toEqual(issues);
  });

  it("events.subscribe counts its events first too", () => {
    expect(() => parseSubscribeParams({ events: Array.from({ length: 100_000 }, () => "question.requested") })).toThrow(/events: .*<=6 items/);
  });

  describe("GatewayError bounds every error it carries", () => {
    it("at most 20 issues, the rest counted, whoever built the list", () => {
      const issues = Array.from({ length: 5000 }, (_, i) => ({ path: `answers.q${i}`, message: "no question has this id" }));
      const error = new GatewayError("QUESTION_INVALID_ANSWER", "x", { issues });
      expect(error.issues).toHaveLength(MAX_ISSUES + 1);
      expect(error.issues![MAX_ISSUES]).toEqual({ path: "", message: "and 4980 more" });
    });

    it.each<[string, string, Array<{ path: string; message: string }>]>([
      ["a 5 MB message", "m".repeat(5_000_000), []],
      ["long paths and messages", "m", Array.from({ length: 20 }, () => ({ path: "p".repeat(100_000), message: "m".repeat(100_000) }))],
      ["texts that JSON escapes six bytes a character", "\u0001".repeat(100_000), Array.from({ length: 25 }, () => ({ path: "\u0001".repeat(10_000), message: "\u001f".repeat(10_000) }))],
      ["three-byte characters", "語".repeat(100_000), Array.from({ length: 25 }, () => ({ path: "語".repeat(10_000), message: "語".repeat(10_000) }))],
    ])("%s: the body stays within 16 KiB with its frame, each text cut and marked", (_name, message, issues) => {
      const body = new GatewayError("INVALID_PARAMS", message, { issues }).toBody();
      const frame = { type: "res", id: "\u0001".repeat(128), ok: false, error: body };
      expect(bytesOf(frame)).toBeLessThanOrEqual(ERROR_RESPONSE_MAX_BYTES);
      if (message.length > 1) expect(body.message.endsWith("…")).toBe(true);
      for (const issue of body.issues!.slice(0, MAX_ISSUES)) expect(issue.path.length).toBeLessThan(300);
    });

    it("a cut never splits a surrogate pair", () => {
      const body = new GatewayError("INVALID_PARAMS", "🚀".repeat(10_000)).toBody();
      expect(() => encodeURIComponent(body.message)).not.toThrow(); // it throws on a lone surrogate
      expect(body.message.endsWith("🚀…")).toBe(true);
    });

    it("a short error is left as it is, and from(toBody()) gives the same body", () => {
      const error = new GatewayError("INVALID_PARAMS", "invalid params for question.get: id: is required", { issues: [{ path: "id", message: "is required" }] });
      expect(error.toBody()).toEqual({ code: "INVALID_PARAMS", message: "invalid params for question.get: id: is required", issues: [{ path: "id", message: "is required" }] });
      const big = new GatewayError("INVALID_PARAMS", "m".repeat(100_000), { issues: Array.from({ length: 100 }, (_, i) => ({ path: `p${i}`, message: "m" })) });
      expect(GatewayError.from(big.toBody()).toBody()).toEqual(big.toBody());
    });

    it("from() reads a malformed body from the wire as texts, never throwing", () => {
      const body = { code: "INVALID_PARAMS", message: 5, issues: [null, { path: 3 }] } as never;
      expect(GatewayError.from(body).toBody()).toEqual({ code: "INVALID_PARAMS", message: "5", issues: [{ path: "", message: "" }, { path: "3", message: "" }] });
    });
  });
});

describe("question.deliveryFailed with sent: true (a copy the platform took, refused later)", () => {
  const base = { id: "q1", surface: "whatsapp", chat: "15550000101", reason: "undeliverable" };

  it("takes sent: true, with or without the copy's messageRef, permanent or unsaid", () => {
    expect(parseParams("question.deliveryFailed", { ...base, sent: true })).toEqual({ ...base, sent: true });
    expect(parseParams("question.deliveryFailed", { ...base, sent: true, messageRef: "wamid.1", permanent: true })).toEqual({ ...base, sent: true, messageRef: "wamid.1", permanent: true });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["sent that is not true", { ...base, sent: false }, "sent"],
    ["sent as a string", { ...base, sent: "yes" }, "sent"],
    ["sent with permanent: false", { ...base, sent: true, permanent: false }, "permanent"],
    ["messageRef without sent", { ...base, messageRef: "wamid.1" }, "messageRef"],
    ["an empty messageRef", { ...base, sent: true, messageRef: "" }, "messageRef"],
    ["a NUL in messageRef", { ...base, sent: true, messageRef: `m${NUL}` }, "messageRef"],
  ])("refuses %s", (_name, params, path) => {
    expect(invalidParams("question.deliveryFailed", params).issues?.map((i) => i.path)).toEqual([path]);
  });
});

describe("question.deliveryFailed with waiting: true (the copy waits for the person, issue 37 §10)", () => {
  const base = { id: "q1", surface: "whatsapp", chat: "15550000101", reason: "the template went out" };

  it("takes waiting: true with permanent: false", () => {
    expect(parseParams("question.deliveryFailed", { ...base, permanent: false, waiting: true })).toEqual({ ...base, permanent: false, waiting: true });
  });

  it.each<[string, Record<string, unknown>]>([
    ["waiting without permanent: false", { ...base, waiting: true }],
    ["waiting with permanent: true", { ...base, waiting: true, permanent: true }],
    ["waiting that is not true", { ...base, waiting: false, permanent: false }],
  ])("refuses %s", (_name, params) => {
    expect(invalidParams("question.deliveryFailed", params).issues?.map((i) => i.path)).toEqual(["waiting"]);
  });
});
