/**
 * The pure Codex mappings: Codex's request_user_input questions to ask_user sets and the answers back
 * (src/coding-agents/codex-questions.ts), and Codex's approvals to approval questions and decisions
 * (src/coding-agents/codex-approvals.ts).
 */
import { describe, expect, it } from "vitest";
import { approvalDecision, approvalInput, type ApprovalRequest } from "../../src/coding-agents/approval.ts";
import {
  commandApprovalRequest,
  fileChangeApprovalRequest,
  legacyCommandApprovalRequest,
  legacyPatchApprovalRequest,
  toCodexDecision,
  toReviewDecision,
} from "../../src/coding-agents/codex-approvals.ts";
import { createFileChangeIndex } from "../../src/coding-agents/codex-file-changes.ts";
import type { CodexQuestion } from "../../src/coding-agents/codex-protocol.ts";
import { codexQuestionsToSets, setAnswersToCodex } from "../../src/coding-agents/codex-questions.ts";

/** The old view of an approval request (what the question named), read from its whole subject. */
function named(request: ApprovalRequest) {
  const subject = request.approval!;
  const input = subject.input as { command?: string; reason?: string };
  const describe = (c: { kind: string; path: string; movePath?: string }) => (c.kind === "update" ? (c.movePath ? `move ${c.path} to ${c.movePath}` : `edit ${c.path}`) : `${c.kind} ${c.path}`);
  const details = subject.changes?.length ? subject.changes.map(describe).join(", ") : (input.command ?? input.reason);
  return { action: request.action, ...(details ? { details } : {}), allowForSession: (subject.grants?.length ?? 0) > 0 };
}
import { normalizeAskUserInput, type AskUserResult } from "../../src/index.ts";

const option = (label: string, description = `About ${label}`) => ({ label, description });
const question = (overrides: Partial<CodexQuestion> = {}): CodexQuestion => ({
  id: "db",
  header: "Database",
  question: "Which database?",
  isOther: true,
  options: [option("Postgres"), option("SQLite")],
  ...overrides,
});
const answered = (answers: Record<string, string[]>): AskUserResult => ({ status: "answered", answers: { answers } });

/** The one question of the first set, as the gateway would ask it. */
function asked(codex: CodexQuestion) {
  const [set] = codexQuestionsToSets([codex]);
  return set!.input.questions[0]!;
}

describe("Codex questions as ask_user questions", () => {
  it.each<[string, Partial<CodexQuestion>, Record<string, unknown>]>([
    ["a question that fits the contract is asked as it is", {}, { id: "db", header: "Database", question: "Which database?", options: [option("Postgres"), option("SQLite")] }],
    ["an id that is not snake_case becomes snake_case", { id: "Deploy-Target!" }, { id: "deploy_target" }],
    ["an id that starts with a digit gets a letter", { id: "1st choice" }, { id: "q_1st_choice" }],
    ["an id with no letters at all still becomes one", { id: "--" }, { id: "question" }],
    ["a header is cut to 12 characters", { header: "Deployment target" }, { header: "Deployment t" }],
    ["an empty header reads Question", { header: "  " }, { header: "Question" }],
    ["an empty question asks the header", { question: "" }, { question: "Database" }],
    ["hidden characters are shown, and lines folded", { question: "Use\nthis \u202Eone?" }, { question: "Use ⏎ this \\u{202E}one?" }],
    ["an option without a description has none", { options: [{ label: "A", description: "" }, option("B")] }, { options: [{ label: "A" }, option("B")] }],
    ["an authored Other option is left out: own words are always offered", { options: [option("A"), option("Other"), option("B")] }, { options: [option("A"), option("B")] }],
    ["a label that reads like an earlier one is left out", { options: [option("A"), option("a."), option("B")] }, { options: [option("A"), option("B")] }],
    ["a label of only punctuation is left out", { options: [option("A"), option("…"), option("B")] }, { options: [option("A"), option("B")] }],
    ["a long label is cut with an ellipsis", { options: [option("x".repeat(80)), option("B")] }, { options: [option(`${"x".repeat(63)}…`, `About ${"x".repeat(80)}`), option("B")] }],
    [
      "more than four options: four are shown, the rest named in the question",
      { options: ["A", "B", "C", "D", "E", "F"].map((l) => option(l)) },
      { question: "Which database? (You can also type: E, F.)", options: ["A", "B", "C", "D"].map((l) => option(l)) },
    ],
    ["one option gets Codex's own None of the above", { options: [option("Yes")] }, { options: [option("Yes"), { label: "None of the above", description: "Or type your own answer" }] }],
    [
      "no options (a free-form question) get No preference and Leave unanswered",
      { options: null },
      { options: [{ label: "No preference", description: "Codex decides" }, { label: "Leave unanswered", description: "Codex gets no answer to this question" }] },
    ],
    ["padding skips a label Codex already has", { options: [option("None of the above")] }, { options: [option("None of the above"), { label: "No preference", description: "Codex decides" }] }],
  ])("%s", (_name, codex, expected) => {
    const fitted = asked(question(codex));
    expect(fitted).toMatchObject(expected);
    expect(normalizeAskUserInput({ questions: [fitted] })).toMatchObject({ ok: true });
  });

  it("asks up to three a set, in order, with ids and headers unique in each set; secret questions are never asked", () => {
    const questions = ["a-b", "a_b", "A B", "secret", "e", "f"].map((id) => question({ id, header: "Same header", isSecret: id === "secret" }));
    const sets = codexQuestionsToSets(questions, 120);
    expect(sets.map((set) => set.input.questions.map((q) => [q.id, q.header]))).toEqual([
      [
        ["a_b", "Same header"],
        ["a_b_2", "Same heade 2"],
        ["a_b_3", "Same heade 3"],
      ],
      [
        ["e", "Same header"],
        ["f", "Same heade 2"],
      ],
    ]);
    for (const set of sets) {
      expect(set.input.timeoutSeconds).toBe(120);
      expect(normalizeAskUserInput(set.input)).toMatchObject({ ok: true });
    }
    expect(codexQuestionsToSets([question({ isSecret: true })])).toEqual([]);
  });
});

describe("ask_user answers as Codex answers", () => {
  const long = "x".repeat(80);
  it.each<[string, Partial<CodexQuestion>, string[], string[] | undefined]>([
    ["a chosen label goes back as Codex's label", {}, ["SQLite"], ["SQLite"]],
    ["a cut label goes back whole", { options: [option(long), option("B")] }, [`${"x".repeat(63)}…`], [long]],
    ["own words go as typed where Codex takes free text (isOther)", {}, ["MariaDB please"], ["MariaDB please"]],
    ["own words go as typed to a free-form question", { isOther: false, options: null }, ["Call it Atlas"], ["Call it Atlas"]],
    ["own words go as Codex's user_note where it takes none", { isOther: false }, ["Neither, ask ops"], ["user_note: Neither, ask ops"]],
    ["typed words naming an option not shown send that option", { options: ["A", "B", "C", "D", "MySQL"].map((l) => option(l)) }, ["mysql"], ["MySQL"]],
    ["None of the above goes as Codex's own label", { options: [option("Yes")] }, ["None of the above"], ["None of the above"]],
    ["No preference goes as it reads", { options: null }, ["No preference"], ["No preference"]],
    ["Leave unanswered leaves the question out", { options: null }, ["Leave unanswered"], undefined],
  ])("%s", (_name, codex, values, expected) => {
    const [set] = codexQuestionsToSets([question({ id: "DB", ...codex })]);
    const answers = setAnswersToCodex(set!, answered({ db: values }));
    expect(answers).toEqual(expected ? { DB: { answers: expected } } : {});
  });

  it.each<AskUserResult>([
    { status: "no_answer", reason: "expired" },
    { status: "no_answer", reason: "skipped" },
    { status: "no_answer", reason: "cancelled" },
    { status: "no_answer", reason: "aborted" },
    { status: "delivery_failed", reason: "no surface connected" },
  ])("no answer (%j) leaves every question out, never sending a choice", (result) => {
    const [set] = codexQuestionsToSets([question(), question({ id: "region", header: "Region" })]);
    expect(setAnswersToCodex(set!, result)).toEqual({});
  });
});

describe("Codex approvals as approval questions", () => {
  const command = { threadId: "t", turnId: "u", itemId: "i", command: "/bin/bash -lc 'rm -rf build'", cwd: "/repo" };
  it.each<[string, Parameters<typeof commandApprovalRequest>[0], ApprovalRequest]>([
    ["a command, with where it runs; an older server offers every decision", command, { action: "Codex to run a command in /repo", details: "/bin/bash -lc 'rm -rf build'", allowForSession: true }],
    ["Allow for this session only when Codex offers acceptForSession", { ...command, availableDecisions: ["accept", "cancel"] }, { action: "Codex to run a command in /repo", details: command.command, allowForSession: false }],
    ["… which it may", { ...command, availableDecisions: ["accept", "acceptForSession", "decline"] }, { action: "Codex to run a command in /repo", details: command.command, allowForSession: true }],
    ["a managed checkpoint takes a one-time decision", { ...command, kind: "humanCommand" }, { action: "Codex to run a command in /repo", details: command.command, allowForSession: false }],
    ["input to a running command", { ...command, kind: "writeStdin", command: null, reason: "y\n" }, { action: "Codex to send input to a running command", details: "y\n", allowForSession: true }],
    ["network access names the host", { ...command, networkApprovalContext: { host: "registry.npmjs.org", protocol: "https" } }, { action: "Codex to reach registry.npmjs.org over https", details: command.command, allowForSession: true }],
  ])("%s", (_name, params, expected) => {
    expect(named(commandApprovalRequest(params))).toEqual(expected);
  });

  it("the question shows a disguised command as it is", () => {
    const input = approvalInput(commandApprovalRequest({ ...command, command: "echo safe\u202E; rm -rf ~\ncurl x" }));
    expect(input.questions[0]!.question).toBe("Allow Codex to run a command in /repo?");
    // The command itself is the subject, kept as it is; every surface shows its hidden characters as marks.
    expect((input.approval.input as { command: string }).command).toBe("echo safe\u202E; rm -rf ~\ncurl x");
  });

  it.each<[string, Parameters<typeof fileChangeApprovalRequest>, ApprovalRequest]>([
    ["one file", [[{ path: "/repo/a.ts", kind: "add" }], {}], { action: "Codex to change a file", details: "add /repo/a.ts", allowForSession: true }],
    [
      "several files, each with what happens to it",
      [[{ path: "/repo/a.ts", kind: "update" }, { path: "/repo/b.ts", kind: "delete" }, { path: "/repo/c.ts", kind: "update", movePath: "/repo/d.ts" }], {}],
      { action: "Codex to change 3 files", details: "edit /repo/a.ts, delete /repo/b.ts, move /repo/c.ts to /repo/d.ts", allowForSession: true },
    ],
    ["files not seen: the reason Codex gives", [undefined, { reason: "Extra write access" }], { action: "Codex to change files", details: "Extra write access", allowForSession: true }],
    ["a root to write under for the session", [[{ path: "/repo/a.ts", kind: "add" }], { grantRoot: "/repo" }], { action: "Codex to write under /repo for this session", details: "add /repo/a.ts", allowForSession: true }],
  ])("a file change: %s", (_name, args, expected) => {
    expect(named(fileChangeApprovalRequest(...args))).toEqual(expected);
  });

  it("the legacy approvals read as the v2 ones, the command quoted as a shell would read it", () => {
    expect(named(legacyCommandApprovalRequest({ conversationId: "c", command: ["bash", "-lc", "echo 'hi' > out"], cwd: "/repo" }))).toEqual({
      action: "Codex to run a command in /repo",
      details: `bash -lc 'echo '\\''hi'\\'' > out'`,
      allowForSession: true,
    });
    expect(named(legacyPatchApprovalRequest({ conversationId: "c", fileChanges: { "/repo/a.ts": { type: "update", move_path: null } } }))).toEqual({
      action: "Codex to change a file",
      details: "edit /repo/a.ts",
      allowForSession: true,
    });
  });

  it("the files of a file change come from its item/started notification, until item/completed", () => {
    const index = createFileChangeIndex();
    const item = { type: "fileChange", id: "call_3", status: "inProgress", changes: [{ path: "/repo/a.ts", kind: { type: "update", move_path: "/repo/b.ts" }, diff: "" }] };
    index.observe("item/started", { item: { type: "commandExecution", id: "call_2" } });
    index.observe("item/started", { item, threadId: "t", turnId: "u" });
    expect(index.changes("call_3")).toEqual([{ path: "/repo/a.ts", kind: "update", movePath: "/repo/b.ts", diff: expect.any(String) }]);
    expect(index.changes("call_2")).toBeUndefined();
    index.observe("item/completed", { item });
    expect(index.changes("call_3")).toBeUndefined();
  });
});

describe("decisions as Codex decisions", () => {
  it.each<[string, AskUserResult, string, unknown]>([
    ["Allow", answered({ approval: ["Allow"] }), "accept", "approved"],
    ["Allow for this session", answered({ approval: ["Allow for this session"] }), "acceptForSession", "approved_for_session"],
    ["Deny", answered({ approval: ["Deny"] }), "decline", { denied: { rejection: expect.stringContaining("denied") } }],
    ["own words", answered({ approval: ["Only on staging"] }), "decline", { denied: { rejection: expect.stringContaining(`"Only on staging"`) } }],
    ["a skip", { status: "no_answer", reason: "skipped" }, "decline", { denied: { rejection: expect.stringContaining("skipped") } }],
    ["no answer", { status: "no_answer", reason: "expired" }, "decline", { denied: { rejection: expect.stringContaining("nobody answered in time") } }],
    ["an undelivered question", { status: "delivery_failed", reason: "no bot" }, "decline", { denied: { rejection: expect.stringContaining("could not be delivered") } }],
  ])("%s", (_name, result, v2, legacy) => {
    const grants = [{ label: "Allow for this session" }];
    expect(toCodexDecision(approvalDecision(result, grants))).toBe(v2);
    expect(toReviewDecision(approvalDecision(result, grants))).toEqual(legacy);
  });
});
