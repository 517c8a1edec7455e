/**
 * The protocol's error codes (PRODUCT.md §3) over a WebSocket and over HTTP: INVALID_PARAMS with its field-level
 * list, QUESTION_NOT_FOUND, QUESTION_ALREADY_TERMINAL, QUESTION_INVALID_ANSWER (resolve validation),
 * SESSION_HAS_PENDING_QUESTION and UNKNOWN_METHOD, plus the HTTP statuses the mirror gives them.
 * UNAUTHORIZED, INVALID_FRAME and FRAME_TOO_LARGE are in gateway-frames.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oneQuestion, openTransport, rpc, twoQuestions, type ResFrame, type Transport, useTestGateway } from "../../helpers/gateway.ts";

const gateway = useTestGateway();

let unique = 0;
const uid = (prefix: string) => `${prefix}_${process.pid}_${++unique}`;
const MISSING = "q00000000000000000000";

function payloadOf(res: ResFrame): any {
  if (!res.ok) throw new Error(`expected ok, got ${res.error.code}: ${res.error.message}`);
  return res.payload;
}
function errorOf(res: ResFrame) {
  if (res.ok) throw new Error(`expected an error, got ${JSON.stringify(res.payload).slice(0, 200)}`);
  expect(res.error.message).toEqual(expect.any(String));
  return res.error;
}

describe.each(["ws", "http"] as const)("error codes over %s", (kind) => {
  let t: Transport;
  beforeAll(async () => {
    t = await openTransport(kind, gateway);
  });
  afterAll(() => t.close());

  it.each<[string, string, unknown, Array<{ path: string; message?: unknown }>]>([
    ["a bad ask_user input names every problem", "question.request", { questions: [{ id: "Bad Id", header: "", question: "Q?", options: [{ label: "A" }] }] }, [
      { path: "questions[0].id" },
      { path: "questions[0].header" },
      { path: "questions[0].options", message: expect.stringContaining("must have 2 to 4 options") },
    ]],
    ["an authored Other option", "question.request", oneQuestion({ questions: [{ id: "a", header: "H", question: "Q?", options: [{ label: "Yes" }, { label: "Other" }] }] }), [{ path: "questions[0].options[1].label" }]],
    ["an unknown request field", "question.request", oneQuestion({ isSecret: true }), [{ path: "isSecret", message: "unknown field" }]],
    ["a bad target", "question.request", oneQuestion({ targets: [{ surface: "telegram" }] }), [{ path: "targets[0].chat" }]],
    ["a missing id", "question.get", {}, [{ path: "id" }]],
    ["an id of the wrong type", "question.get", { id: 5 }, [{ path: "id" }]],
    ["an unknown field", "question.get", { id: "q1", extra: 1 }, [{ path: "extra", message: "unknown field" }]],
    ["a bad status filter", "question.list", { status: "done" }, [{ path: "status" }]],
    ["a bad surface filter", "question.list", { surface: "irc" }, [{ path: "surface" }]],
    ["a bad waitAnswer timeout", "question.waitAnswer", { id: "q1", timeoutMs: -1 }, [{ path: "timeoutMs" }]],
    ["a bad cancel reason", "question.resolve", { id: "q1", cancel: true, reason: "bored" }, [{ path: expect.any(String) }]],
    ["delivered without messageRef", "question.delivered", { id: "q1", surface: "telegram", chat: "1" }, [{ path: "messageRef" }]],
    ["deliveryFailed without reason", "question.deliveryFailed", { id: "q1", surface: "telegram", chat: "1" }, [{ path: "reason" }]],
    ["deliveryFailed with a permanent that is not a boolean", "question.deliveryFailed", { id: "q1", surface: "telegram", chat: "1", reason: "r", permanent: "no" }, [{ path: "permanent" }]],
    ["deliveryFailed with a negative retryAtMs", "question.deliveryFailed", { id: "q1", surface: "telegram", chat: "1", reason: "r", permanent: false, retryAtMs: -1 }, [{ path: "retryAtMs" }]],
    ["copyRendered without rendered", "question.copyRendered", { id: "q1", surface: "telegram", chat: "1" }, [{ path: "rendered" }]],
    ["copyRendered with rendered over 128 characters", "question.copyRendered", { id: "q1", surface: "telegram", chat: "1", rendered: "r".repeat(129) }, [{ path: "rendered" }]],
    ["a reply's messageRef without by.chat", "question.reply", { id: "q1", text: "2", messageRef: "m1" }, [{ path: "by.chat" }]],
    ["an empty messageRef", "question.reply", { id: "q1", text: "2", by: { surface: "telegram", chat: "1" }, messageRef: "" }, [{ path: "messageRef" }]],
    ["run.abort without runId", "run.abort", {}, [{ path: "runId" }]],
  ])("INVALID_PARAMS: %s", async (_what, method, params, issues) => {
    const error = errorOf(await t.call(method, params));
    expect(error.code).toBe("INVALID_PARAMS");
    expect(error.issues).toEqual(expect.arrayContaining(issues.map((i) => expect.objectContaining(i))));
  });

  it.each<[string, unknown]>([
    ["question.get", { id: MISSING }],
    ["question.resolve", { id: MISSING, answers: { a: "b" } }],
    ["question.resolve", { id: MISSING, cancel: true }],
    ["question.waitAnswer", { id: MISSING, timeoutMs: 10 }],
    ["question.delivered", { id: MISSING, surface: "telegram", chat: "1", messageRef: "m" }],
    ["question.deliveryFailed", { id: MISSING, surface: "telegram", chat: "1", reason: "r" }],
    ["question.copyRendered", { id: MISSING, surface: "telegram", chat: "1", rendered: "v1" }],
  ])("QUESTION_NOT_FOUND: %s %j", async (method, params) => {
    expect(errorOf(await t.call(method, params)).code).toBe("QUESTION_NOT_FOUND");
  });

  it("UNKNOWN_METHOD names the method", async () => {
    const error = errorOf(await t.call("question.nope", {}));
    expect(error.code).toBe("UNKNOWN_METHOD");
    expect(error.message).toContain("question.nope");
  });

  it("QUESTION_ALREADY_TERMINAL for every later resolution, and nothing changes", async () => {
    const { id } = payloadOf(await t.call("question.request", oneQuestion()));
    const first = payloadOf(await t.call("question.resolve", { id, cancel: true, reason: "skipped" }));
    for (const params of [{ id, answers: { deploy_target: "Production" } }, { id, cancel: true, reason: "cancelled" }, { id, cancel: true, reason: "skipped" }]) {
      expect(errorOf(await t.call("question.resolve", params)).code).toBe("QUESTION_ALREADY_TERMINAL");
    }
    expect(payloadOf(await t.call("question.get", { id }))).toEqual(first);
  });

  it("SESSION_HAS_PENDING_QUESTION: one pending question per session", async () => {
    const sessionKey = uid("session");
    const { id } = payloadOf(await t.call("question.request", oneQuestion({ sessionKey })));
    const error = errorOf(await t.call("question.request", oneQuestion({ sessionKey })));
    expect(error.code).toBe("SESSION_HAS_PENDING_QUESTION");
    expect(payloadOf(await t.call("question.list", { sessionKey })).questions).toHaveLength(1);
    payloadOf(await t.call("question.request", oneQuestion({ sessionKey: uid("session") })));
    payloadOf(await t.call("question.request", oneQuestion())); // no session: no limit
    payloadOf(await t.call("question.resolve", { id, answers: { deploy_target: "Production" } }));
    payloadOf(await t.call("question.request", oneQuestion({ sessionKey })));
  });

  describe("QUESTION_INVALID_ANSWER (resolve validation)", () => {
    it.each<[string, Record<string, unknown>, string, RegExp]>([
      ["two values for a single-select question", { env: ["Staging", "Production"], checks: ["Lint"] }, "answers.env", /exactly one/],
      ["no value for a multi-select question", { env: "Staging", checks: [] }, "answers.checks", /at least one/],
      ["a blank value", { env: "   ", checks: ["Lint"] }, "answers.env", /at least one/],
      ["a question left out", { env: "Staging" }, "answers.checks", /at least one/],
      ["an unknown question id", { env: "Staging", checks: ["Lint"], nope: "x" }, "answers.nope", /no question/],
    ])("refuses %s and changes nothing", async (_what, answers, path, message) => {
      const { id } = payloadOf(await t.call("question.request", twoQuestions()));
      const error = errorOf(await t.call("question.resolve", { id, answers }));
      expect(error.code).toBe("QUESTION_INVALID_ANSWER");
      expect(error.issues).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
      expect(payloadOf(await t.call("question.get", { id }))).toMatchObject({ status: "pending" });
      expect(payloadOf(await t.call("question.get", { id })).answers).toBeUndefined();
    });

    it("accepts a valid answer: labels matched case-insensitively become the exact label, own text is kept, repeats collapse", async () => {
      const { id } = payloadOf(await t.call("question.request", twoQuestions()));
      const record = payloadOf(await t.call("question.resolve", { id, answers: { env: "PRODUCTION", checks: ["lint", " e2e ", "Lint", "smoke tests please"] } }));
      expect(record.answers).toEqual({ env: ["Production"], checks: ["Lint", "E2E", "smoke tests please"] });
      expect(payloadOf(await t.call("question.waitAnswer", { id })).answers).toEqual({ answers: record.answers });
    });

    it("refuses a credential-shaped answer with its own code, CREDENTIAL_REFUSED, and records nothing", async () => {
      const { id } = payloadOf(await t.call("question.request", twoQuestions()));
      const key = `sk-proj-${"a1B2c3D4e5".repeat(4)}`;
      const error = errorOf(await t.call("question.resolve", { id, answers: { env: key, checks: ["Lint"] } }));
      expect(error.code).toBe("CREDENTIAL_REFUSED");
      expect(error.issues).toEqual([{ path: "answers.env", message: expect.stringMatching(/looks like a credential/) }]);
      expect(JSON.stringify(payloadOf(await t.call("question.get", { id })))).not.toContain(key);
      expect(payloadOf(await t.call("question.get", { id }))).toMatchObject({ status: "pending" });
    });

    it("accepts one value of own text for a single-select question", async () => {
      const { id } = payloadOf(await t.call("question.request", oneQuestion()));
      const record = payloadOf(await t.call("question.resolve", { id, answers: { deploy_target: ["canary first, then production"] } }));
      expect(record.answers).toEqual({ deploy_target: ["canary first, then production"] });
    });
  });
});

describe("the HTTP mirror's statuses", () => {
  it.each<[string, string, unknown, number, string]>([
    ["ok", "question.list", {}, 200, ""],
    ["invalid params", "question.get", {}, 400, "INVALID_PARAMS"],
    ["not found", "question.get", { id: MISSING }, 404, "QUESTION_NOT_FOUND"],
    ["unknown method", "question.nope", {}, 404, "UNKNOWN_METHOD"],
    ["invalid answer", "question.resolve", { id: "__pending__", answers: {} }, 422, "QUESTION_INVALID_ANSWER"],
    ["credential refused", "question.resolve", { id: "__pending__", answers: { deploy_target: `ghp_${"x1Y2z3".repeat(6)}` } }, 422, "CREDENTIAL_REFUSED"],
  ])("%s → %i", async (_what, method, params, status, code) => {
    let body = params as Record<string, unknown>;
    if (body.id === "__pending__") body = { ...body, id: payloadOf((await rpc(gateway.url, "question.request", oneQuestion())).body).id };
    const res = await rpc(gateway.url, method, body);
    expect(res.status).toBe(status);
    if (code) expect(res.body).toMatchObject({ type: "res", ok: false, error: { code } });
    else expect(res.body).toMatchObject({ type: "res", ok: true });
  });

  it("terminal and session conflicts → 409", async () => {
    const sessionKey = uid("http");
    const { id } = payloadOf((await rpc(gateway.url, "question.request", oneQuestion({ sessionKey }))).body);
    const conflict = await rpc(gateway.url, "question.request", oneQuestion({ sessionKey }));
    expect(conflict).toMatchObject({ status: 409, body: { ok: false, error: { code: "SESSION_HAS_PENDING_QUESTION" } } });
    expect((await rpc(gateway.url, "question.resolve", { id, cancel: true })).status).toBe(200);
    const terminal = await rpc(gateway.url, "question.resolve", { id, cancel: true });
    expect(terminal).toMatchObject({ status: 409, body: { ok: false, error: { code: "QUESTION_ALREADY_TERMINAL" } } });
  });

  it("GET on /rpc is refused, /healthz answers, and other paths are 404", async () => {
    expect((await fetch(`${gateway.url}/rpc/question.list`, { headers: { authorization: "Bearer x" } })).status).toBe(405);
    expect(await (await fetch(`${gateway.url}/healthz`)).json()).toEqual({ ok: true });
    expect((await fetch(`${gateway.url}/nope`)).status).toBe(404);
  });
});
