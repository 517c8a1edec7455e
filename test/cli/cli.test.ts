/**
 * The CLI as a child process (`node dist/bin/ask-user-bridge.js …`) against a real gateway: `ask` answered through
 * `/rpc/question.resolve` (exit 0), expired (3), delivery_failed (4), invalid input (1); `list`, `get`, `cancel`;
 * `--help` everywhere; a bad environment variable named in the error.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { cleanup, rpc, rpcOk, spawnCli, startTestGateway, tempDir, TOKEN, twoQuestions, waitForOutput, type TestGateway } from "../helpers/gateway.ts";

let gateway: TestGateway;
let env: Record<string, string>;
let notJsonFile: string;
beforeAll(async () => {
  notJsonFile = join(tempDir("aub-cli-json-"), "input.json");
  writeFileSync(notJsonFile, "{nope");
  gateway = await startTestGateway({ DELIVERY_TIMEOUT_SECONDS: 1, ASK_TEST_MIN_TIMEOUT_SECONDS: 1 });
  env = { GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-cli-") };
});
afterAll(async () => {
  await gateway.close();
  await cleanup();
});

const DEPLOY = ["--question", "Where should I deploy?", "--option", "Staging (Recommended)", "--option", "Production"];
function json(text: string): Record<string, any> {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`expected JSON on stdout, got ${JSON.stringify(text.slice(0, 300))}`);
  }
}

/** The same CLI in this process (for the many small cases; each child process costs ~1 s of CPU). */
async function runMain(argv: string[], environment: Record<string, string | undefined>) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, environment, { out: (s) => void (stdout += `${s}\n`), err: (s) => void (stderr += `${s}\n`) });
  return { code, stdout, stderr };
}

// Child processes start in ~1 s on an idle machine, but far slower on a loaded one: generous timeouts.
describe.concurrent("ask-user-bridge ask", { timeout: 90_000 }, () => {
  it("prints the answered JSON and exits 0 when answered through /rpc/question.resolve", async () => {
    const run = spawnCli(["ask", ...DEPLOY, "--header", "Deploy", "--id", "deploy_target", "--run-id", "cli_answered"], env);
    const [, id] = await waitForOutput(run, /Asked (q[0-9a-f]+)/);
    const record = await rpcOk(gateway.url, "question.get", { id });
    expect(record).toMatchObject({ runId: "cli_answered", targets: [{ surface: "web" }], questions: [{ id: "deploy_target", header: "Deploy", options: [{ label: "Staging (Recommended)" }, { label: "Production" }] }] });
    const res = await fetch(`${gateway.url}/rpc/question.resolve`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ id, answers: { deploy_target: "production" } }),
    });
    expect(res.status).toBe(200);
    const { code, stdout } = await run.exited;
    expect(json(stdout)).toEqual({ status: "answered", answers: { answers: { deploy_target: ["Production"] } }, answeredBy: { surface: "api", via: "api" } });
    expect(code).toBe(0);
  });

  it("exits 3 with no_answer/expired after --timeout 1 (ASK_TEST_MIN_TIMEOUT_SECONDS=1 on the gateway)", async () => {
    const run = spawnCli(["ask", ...DEPLOY, "--timeout", "1"], env);
    const [, id] = await waitForOutput(run, /Asked (q[0-9a-f]+)/);
    const { code, stdout } = await run.exited;
    expect(json(stdout)).toEqual({ status: "no_answer", reason: "expired" });
    expect(code).toBe(3);
    const record = await rpcOk(gateway.url, "question.get", { id });
    expect(record).toMatchObject({ status: "expired", timeoutSeconds: 1 });
    expect(record.resolvedAtMs - record.expiresAtMs).toBeLessThan(1_000);
  });

  it("exits 4 with delivery_failed for --to telegram:1 when no bot delivers (DELIVERY_TIMEOUT_SECONDS=1)", async () => {
    const { code, stdout } = await spawnCli(["ask", ...DEPLOY, "--to", "telegram:1"], env).exited;
    expect(json(stdout)).toMatchObject({ status: "delivery_failed", reason: expect.stringContaining("telegram:1") });
    expect(code).toBe(4);
  });

  it("takes --json - from stdin with repeatable --to, and exits 3 with the reason when `cancel --reason skipped` ends it", async () => {
    const ask = spawnCli(["ask", "--json", "-", "--to", "web", "--to", "slack:C0123ABCD:U1+U2", "--session", "cli_json"], env, { input: JSON.stringify(twoQuestions()) });
    const [, id] = await waitForOutput(ask, /Asked (q[0-9a-f]+)/);
    expect(await rpcOk(gateway.url, "question.get", { id })).toMatchObject({
      sessionKey: "cli_json",
      targets: [{ surface: "web" }, { surface: "slack", chat: "C0123ABCD", users: ["U1", "U2"] }],
      questions: [{ id: "env" }, { id: "checks", multiSelect: true }],
    });
    const cancel = await spawnCli(["cancel", id!, "--reason", "skipped"], env).exited;
    expect(cancel.code).toBe(0);
    expect(json(cancel.stdout)).toMatchObject({ id, status: "cancelled", reason: "skipped", by: { surface: "cli" } });
    const { code, stdout } = await ask.exited;
    expect(json(stdout)).toEqual({ status: "no_answer", reason: "skipped" });
    expect(code).toBe(3);
  });

  it.each<[string, string[], RegExp]>([
    ["one --option", ["ask", "--question", "Deploy?", "--option", "Only"], /^ask: --option: must have 2 to 4 options \(got 1\) \(see "ask-user-bridge ask --help"\)\n$/],
    ["an authored Other", ["ask", ...DEPLOY, "--option", "Other"], /^ask: --option 3: /],
    ["a bad --id", ["ask", ...DEPLOY, "--id", "Not Snake"], /^ask: --id: /],
    ["no --question", ["ask", "--option", "A", "--option", "B"], /--question/],
    ["a bad --to", ["ask", ...DEPLOY, "--to", "irc:1"], /--to[\s\S]*unknown surface/],
    ["a bad --timeout", ["ask", ...DEPLOY, "--timeout", "soon"], /--timeout/],
    ["an unknown flag", ["ask", ...DEPLOY, "--frobnicate"], /frobnicate/],
    ["--json that is not JSON", ["ask", "--json", "-"], /--json \S+: not valid JSON/],
  ])("exits 1 on %s, naming the problem", async (what, args, message) => {
    // One case runs as a child process; the rest run the same main() in-process (--json - there reads a file instead).
    const inProcessArgs = args.map((a) => (a === "-" ? notJsonFile : a));
    const { code, stderr, stdout } = what === "one --option" ? await spawnCli(args, env).exited : await runMain(inProcessArgs, env);
    expect(stderr).toMatch(message);
    expect(stdout).toBe("");
    expect(code).toBe(1);
  });
});

describe.concurrent("ops commands", { timeout: 90_000 }, () => {
  it("list, get and cancel work, and refuse what they should", async () => {
    const { id } = await rpcOk(gateway.url, "question.request", { ...twoQuestions(), runId: "cli_ops" });
    // `list` runs as a child process (as `cancel` does above); the rest run main() in-process to keep the suite quick.
    const [list, get] = await Promise.all([spawnCli(["list", "--run-id", "cli_ops"], env).exited, runMain(["get", id], env)]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ID\s+STATUS\s+CREATED\s+TARGETS\s+QUESTION$/m);
    expect(list.stdout).toMatch(new RegExp(`^${id}\\s+pending\\s+.*web\\s+Env: Which environment\\? \\(\\+1\\)`, "m"));
    expect(get.code).toBe(0);
    expect(json(get.stdout)).toEqual(await rpcOk(gateway.url, "question.get", { id }));
    const listed = await runMain(["list", "--json", "--status", "pending", "--run-id", "cli_ops"], env);
    expect(json(listed.stdout)).toEqual([expect.objectContaining({ id, status: "pending" })]);

    const cancel = await runMain(["cancel", id], env);
    expect(cancel.code).toBe(0);
    expect(json(cancel.stdout)).toMatchObject({ id, status: "cancelled", reason: "cancelled" });
    expect((await rpc(gateway.url, "question.get", { id })).body).toMatchObject({ ok: true, payload: { status: "cancelled", reason: "cancelled" } });

    const [again, missing, noId, badReason, empty] = await Promise.all([
      runMain(["cancel", id], env),
      runMain(["get", "q_missing"], env),
      runMain(["get"], env),
      runMain(["cancel", id, "--reason", "bored"], env),
      runMain(["list", "--run-id", "cli_nobody"], env),
    ]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining("QUESTION_ALREADY_TERMINAL")]);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining("QUESTION_NOT_FOUND")]);
    expect([noId.code, noId.stderr]).toEqual([1, expect.stringContaining("exactly one question id")]);
    expect([badReason.code, badReason.stderr]).toEqual([1, expect.stringContaining("--reason")]);
    expect([empty.code, empty.stdout.trim()]).toEqual([0, "No questions."]);
  });

  it("a wrong token exits 1 with UNAUTHORIZED", async () => {
    const { code, stderr } = await runMain(["list"], { ...env, GATEWAY_TOKEN: "z".repeat(32) });
    expect(stderr).toContain("UNAUTHORIZED");
    expect(code).toBe(1);
  });

  it("a bad GATEWAY_PORT=abc exits 1 with a message naming GATEWAY_PORT (child process)", async () => {
    const { code, stderr } = await spawnCli(["list"], { ...env, GATEWAY_URL: "", GATEWAY_PORT: "abc" }).exited;
    expect(stderr).toMatch(/Configuration error:[\s\S]*GATEWAY_PORT:/);
    expect(code).toBe(1);
  });

  it.each<[string, Record<string, string>]>([
    ["GATEWAY_PORT", { GATEWAY_PORT: "99999" }],
    ["GATEWAY_URL", { GATEWAY_URL: "not a url" }],
    ["DELIVERY_TIMEOUT_SECONDS", { DELIVERY_TIMEOUT_SECONDS: "-5" }],
    ["GATEWAY_TOKEN", { GATEWAY_TOKEN: "short" }],
    ["ASK_DEFAULT_TARGETS", { ASK_DEFAULT_TARGETS: "telegram" }],
    ["STORE", { STORE: "postgres" }],
  ])("a bad %s exits 1 with a message naming it", async (name, bad) => {
    const { code, stderr } = await runMain(["list"], { ...env, ...bad });
    expect(stderr).toMatch(new RegExp(`Configuration error:[\\s\\S]*${name}:`));
    expect(code).toBe(1);
  });
});

describe.concurrent("when nobody answers: ask --escalate/--remind/--late-answer-seconds, list --late", { timeout: 90_000 }, () => {
  it("asks with the follow-up flags, escalates, expires, then list --late shows the late answer (and --json every field)", async () => {
    const flags = ["--timeout", "2", "--remind", "none", "--late-answer-seconds", "30", "--escalate", "1=slack:C0123ABCD,telegram:42", "--session", "cli_late"];
    const asked = await runMain(["ask", ...DEPLOY, "--id", "deploy_target", "--header", "Deploy", ...flags], env);
    expect(asked.code).toBe(3);
    expect(json(asked.stdout)).toEqual({ status: "no_answer", reason: "expired" });
    const [record] = json((await runMain(["list", "--json", "--session", "cli_late"], env)).stdout) as any[];
    expect(record).toMatchObject({
      status: "expired",
      reminders: [],
      lateAnswerSeconds: 30,
      escalate: [{ afterSeconds: 1, targets: [{ surface: "slack", chat: "C0123ABCD" }, { surface: "telegram", chat: "42" }] }],
      escalated: [{ step: 0, afterSeconds: 1 }],
      targets: [{ surface: "web" }, { surface: "slack", chat: "C0123ABCD" }, { surface: "telegram", chat: "42" }],
    });
    expect((await runMain(["list", "--late", "--session", "cli_late"], env)).stdout.trim()).toBe("No late answers.");
    await rpcOk(gateway.url, "question.resolve", { id: record.id, answers: { deploy_target: "production" }, by: { surface: "slack", user: "U1", userName: "Ada", chat: "C0123ABCD", via: "button" } });

    const late = await runMain(["list", "--late", "--session", "cli_late"], env);
    expect(late.code).toBe(0);
    expect(late.stdout).toMatch(/^ID\s+EXPIRED\s+ANSWERED LATE\s+BY\s+QUESTION\s+ANSWER$/m);
    expect(late.stdout).toMatch(new RegExp(`^${record.id}\\s+\\S+Z\\s+\\S+Z\\s+slack:Ada\\s+Deploy: Where should I deploy\\?\\s+Production$`, "m"));
    const lateJson = json((await runMain(["list", "--late", "--json"], env)).stdout) as any[];
    expect(lateJson.map((r) => r.id)).toContain(record.id);
    expect(lateJson.every((r) => r.lateAnswer)).toBe(true);
    expect(lateJson.find((r) => r.id === record.id)).toMatchObject({ status: "expired", lateAnswer: { answers: { deploy_target: ["Production"] }, by: { surface: "slack" } } });
  });

  it("refuses bad follow-up flags before asking anything", async () => {
    const [escalate, remind, late] = await Promise.all([
      runMain(["ask", ...DEPLOY, "--escalate", "soon=slack:C1"], env),
      runMain(["ask", ...DEPLOY, "--remind", "none", "--remind", "60"], env),
      runMain(["ask", ...DEPLOY, "--late-answer-seconds", "-1"], env),
    ]);
    for (const run of [escalate, remind, late]) expect(run).toMatchObject({ code: 1, stderr: expect.stringContaining("ask --help") });
    expect(escalate.stderr).toContain("--escalate");
    expect(remind.stderr).toContain("--remind none");
    expect(late.stderr).toContain("--late-answer-seconds");
  });
});

describe("--help", { timeout: 90_000 }, () => {
  const commands = [[], ["start"], ["gateway"], ["bot"], ["ask"], ["list"], ["get"], ["cancel"]];
  const usage = (name: string | undefined) => (name ? `Usage: ask-user-bridge ${name}` : "Usage: ask-user-bridge <command>");

  it("prints usage and exits 0 as a child process, even with a bad environment", async () => {
    const { code, stdout } = await spawnCli(["ask", "--help"], { GATEWAY_PORT: "abc" }).exited;
    expect(stdout).toContain(usage("ask"));
    expect(stdout).toMatch(/Exit codes: 0 answered, 3 no_answer, 4 delivery_failed, 1 error/);
    expect(code).toBe(0);
  });

  it.each(commands.flatMap((c) => [[...c, "--help"], [...c, "-h"]]))("%s %s exits 0 with its usage", async (...argv) => {
    const { code, stdout } = await runMain(argv, { GATEWAY_PORT: "abc" });
    expect(stdout).toContain(usage(argv.length > 1 ? argv[0] : undefined));
    expect(code).toBe(0);
  });

  it("an unknown command exits 1 with the usage", async () => {
    const { code, stderr } = await runMain(["frobnicate"], {});
    expect(stderr).toMatch(/Unknown command "frobnicate"[\s\S]*Usage: ask-user-bridge <command>/);
    expect(code).toBe(1);
  });
});
