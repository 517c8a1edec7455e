/**
 * Web targets in text form (issue 29 §1): `web` is anyone signed in to the Control UI, `web:<name>` one person, and
 * both format back as written. The pure pieces the gateway builds on: the parser, who a web target admits, and the
 * person's policy (what it may call, and `by` from its credential).
 */
import { describe, expect, it } from "vitest";
import { authorizeCall } from "../../src/gateway/auth/policy.ts";
import type { Principal } from "../../src/gateway/auth/principal.ts";
import { canSee } from "../../src/gateway/auth/scope.ts";
import { GatewayError } from "../../src/kernel/errors.ts";
import { parseParams } from "../../src/protocol/methods.ts";
import { formatTarget, isChatTarget, parseTarget, parseTargetList, PERSON_NAME_PATTERN, webTargetAdmits } from "../../src/record/targets.ts";
import type { Target } from "../../src/record/record.ts";
import { cleanup, rpc, startTestGateway } from "../helpers/gateway.ts";

describe("web targets in text form", () => {
  it.each<[string, Target, string]>([
    ["web", { surface: "web" }, "web"],
    [" WEB ", { surface: "web" }, "web"],
    ["web:alice", { surface: "web", users: ["alice"] }, "web:alice"],
    ["web:Alice", { surface: "web", users: ["alice"] }, "web:alice"],
    ["web:alice+bob", { surface: "web", users: ["alice", "bob"] }, "web:alice+bob"],
    ["web:alice+alice", { surface: "web", users: ["alice"] }, "web:alice"],
    ["web:ops.lead@example.com", { surface: "web", users: ["ops.lead@example.com"] }, "web:ops.lead@example.com"],
    ["web:a_b-c9", { surface: "web", users: ["a_b-c9"] }, "web:a_b-c9"],
  ])("%j parses to %j and formats as %j", (text, target, formatted) => {
    expect(parseTarget(text)).toEqual({ ok: true, target });
    expect(formatTarget(target)).toBe(formatted);
    expect(parseTarget(formatted)).toEqual({ ok: true, target });
    expect(isChatTarget(target)).toBe(false);
  });

  it.each(["web:", "web: ", "web:+", "web:alice+", "web:+alice", "web:alice bob", "web:al:ice", "web:<b>", "web:-alice", "web:.alice", "web:ü", `web:${"a".repeat(65)}`, "web:alice,bob"])(
    "%j is refused with the form it takes",
    (text) => {
      const parsed = parseTarget(text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toContain("web:NAME");
    },
  );

  it("reads lists with web targets among chat ones", () => {
    expect(parseTargetList("web:alice, telegram:42, web")).toEqual([{ surface: "web", users: ["alice"] }, { surface: "telegram", chat: "42" }, { surface: "web" }]);
    expect(() => parseTargetList("web:alice smith")).toThrow(/web:NAME/);
  });

  it("names: lowercase letters, digits and . _ @ -, starting with a letter or digit, 64 at most", () => {
    for (const name of ["alice", "a", "9lives", "ops.lead@example.com", "a".repeat(64)]) expect(PERSON_NAME_PATTERN.test(name), name).toBe(true);
    for (const name of ["", "Alice", "_a", "a b", "a:b", "a+b", "a,b", "a".repeat(65), "a\n", "a\u0000"]) expect(PERSON_NAME_PATTERN.test(name), JSON.stringify(name)).toBe(false);
  });

  it("a web target admits anyone signed in, web:<name> only that person, and a chat target no one on the web", () => {
    expect(webTargetAdmits({ surface: "web" }, "alice")).toBe(true);
    expect(webTargetAdmits({ surface: "web", users: [] }, "alice")).toBe(true);
    expect(webTargetAdmits({ surface: "web", users: ["alice"] }, "alice")).toBe(true);
    expect(webTargetAdmits({ surface: "web", users: ["alice"] }, "bob")).toBe(false);
    expect(webTargetAdmits({ surface: "web", users: ["alice"] }, undefined)).toBe(false);
    expect(webTargetAdmits({ surface: "telegram", chat: "42" }, "alice")).toBe(false);
  });
});

describe("a person's policy", () => {
  const alice: Principal = { kind: "person", credentialId: "c1", name: "alice" };
  const record = (targets: Target[]) => ({ id: "q1", askedBy: undefined, targets });

  it("sees only questions with a web or web:alice target", () => {
    expect(canSee(alice, record([{ surface: "web" }]))).toBe(true);
    expect(canSee(alice, record([{ surface: "telegram", chat: "1" }, { surface: "web", users: ["bob", "alice"] }]))).toBe(true);
    expect(canSee(alice, record([{ surface: "web", users: ["bob"] }]))).toBe(false);
    expect(canSee(alice, record([{ surface: "telegram", chat: "1" }]))).toBe(false);
    expect(canSee(alice, record([]))).toBe(false);
    expect(canSee({ kind: "web" }, record([{ surface: "web", users: ["bob"] }]))).toBe(true);
  });

  it("may call what the Control UI may, and nothing else", () => {
    const code = (method: string, params: unknown) => {
      try {
        authorizeCall(alice, method as never, parseParams(method as never, params));
        return "allowed";
      } catch (error) {
        return (error as GatewayError).code;
      }
    };
    expect(code("question.list", {})).toBe("allowed");
    expect(code("question.get", { id: "q1" })).toBe("allowed");
    expect(code("question.waitAnswer", { id: "q1" })).toBe("allowed");
    expect(code("question.reply", { id: "q1", text: "1" })).toBe("allowed");
    expect(code("question.resolve", { id: "q1", cancel: true, reason: "skipped" })).toBe("allowed");
    expect(code("question.request", { questions: [{ id: "a", header: "A", question: "A?", options: [{ label: "X" }, { label: "Y" }] }] })).toBe("FORBIDDEN");
    expect(code("question.delivered", { id: "q1", surface: "telegram", chat: "1", messageRef: "m" })).toBe("FORBIDDEN");
    expect(code("run.abort", { runId: "r" })).toBe("FORBIDDEN");
  });

  it("records its answers as itself on the web, whatever `by` it sends", () => {
    const params = parseParams("question.resolve", { id: "q1", answers: { a: "x" }, by: { surface: "telegram", user: "42", userName: "Mallory", chat: "9", via: "button" } });
    expect(authorizeCall(alice, "question.resolve", params).by).toEqual({ surface: "web", user: "alice", userName: "alice", via: "web" });
    const typed = parseParams("question.reply", { id: "q1", text: "1", by: { surface: "web", via: "text" } });
    expect(authorizeCall(alice, "question.reply", typed).by).toEqual({ surface: "web", user: "alice", userName: "alice", via: "text" });
  });

  it("protocol: a web target's users must be people's names, each named by its path", () => {
    let issues: Array<{ path: string }> = [];
    try {
      parseParams("question.request", { questions: [{ id: "a", header: "A", question: "A?", options: [{ label: "X" }, { label: "Y" }] }], targets: [{ surface: "web", users: ["alice", "Bob", "", "a b"] }] });
    } catch (error) {
      issues = (error as GatewayError).issues ?? [];
    }
    expect(issues.map((i) => i.path).sort()).toEqual(["targets[0].users[1]", "targets[0].users[2]", "targets[0].users[3]"]);
  });
});

describe("ASK_ALLOWED_TARGETS with web:NAME", () => {
  it("admits web targets for the people it names only; web admits every web target", async () => {
    const parse = parseTargetList;
    const ask = (url: string, targets: Target[]) =>
      rpc(url, "question.request", { questions: [{ id: "a", header: "A", question: "A?", options: [{ label: "X" }, { label: "Y" }] }], targets });
    const narrow = await startTestGateway({ ASK_ALLOWED_TARGETS: parse("web:alice+bob, telegram:42") });
    const wide = await startTestGateway({ ASK_ALLOWED_TARGETS: parse("web") });
    try {
      for (const [targets, ok] of [
        [[{ surface: "web", users: ["alice"] }], true],
        [[{ surface: "web", users: ["bob", "alice"] }], true],
        [[{ surface: "web", users: ["carol"] }], false],
        [[{ surface: "web", users: ["alice", "carol"] }], false],
        [[{ surface: "web" }], false],
        [[{ surface: "telegram", chat: "42", users: ["7"] }], true],
      ] as Array<[Target[], boolean]>) {
        const { body } = await ask(narrow.url, targets);
        expect([JSON.stringify(targets), body.ok]).toEqual([JSON.stringify(targets), ok]);
        if (!body.ok) expect(body.error.message).toContain("is not in ASK_ALLOWED_TARGETS");
      }
      for (const targets of [[{ surface: "web" }], [{ surface: "web", users: ["carol"] }]] as Target[][]) expect((await ask(wide.url, targets)).body.ok).toBe(true);
    } finally {
      await Promise.all([narrow.close(), wide.close()]);
      await cleanup();
    }
  });
});
