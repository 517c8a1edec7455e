import { describe, expect, it } from "vitest";
import { createAskUserTool, NO_ANSWER_REASONS, type AskFunction, type AskUserInput } from "../../src/index.ts";

const validInput = {
  questions: [
    {
      id: "deploy_target",
      header: "Deployment target",
      question: "Where should I deploy?",
      options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
    },
  ],
};

/** An in-memory "person": records what was asked and answers with a scripted outcome. */
function scriptedAsk(outcome: Awaited<ReturnType<AskFunction>>) {
  const asked: AskUserInput[] = [];
  const ask: AskFunction = async (input) => {
    asked.push(input);
    return outcome;
  };
  return { ask, asked };
}

describe("createAskUserTool", () => {
  it("is given to the main session only", () => {
    const { ask } = scriptedAsk({ status: "no_answer", reason: "expired" });
    const tool = createAskUserTool({ session: { kind: "main", key: "s1" }, ask });
    expect(tool?.name).toBe("ask_user");
    expect(tool?.inputSchema).toMatchObject({ type: "object" });
    expect(tool?.description).toMatch(/never ask whether you may proceed/i);
    expect(tool?.description).toMatch(/Other/);
    expect(tool?.description).toMatch(/credential/);
    expect(tool?.description).toMatch(/\(Recommended\)/);
    expect(createAskUserTool({ session: { kind: "subagent" }, ask })).toBeUndefined();
    expect(createAskUserTool({ session: { kind: "cron" }, ask })).toBeUndefined();
  });

  it("passes the normalised input to ask and maps an answer", async () => {
    const { ask, asked } = scriptedAsk({
      status: "answered",
      answers: { answers: { deploy_target: ["Staging (Recommended)"] } },
      answeredBy: { surface: "telegram", user: "42" },
    });
    const tool = createAskUserTool({ session: { kind: "main" }, ask })!;
    const result = await tool.execute(validInput);
    expect(result).toEqual({
      status: "answered",
      answers: { answers: { deploy_target: ["Staging (Recommended)"] } },
      answeredBy: { surface: "telegram", user: "42" },
    });
    expect(asked[0]!.questions[0]!.header).toBe("Deployment t");
    expect(asked[0]!.timeoutSeconds).toBe(900);
  });

  it.each(NO_ANSWER_REASONS)("maps no_answer with reason %s", async (reason) => {
    const tool = createAskUserTool({ session: { kind: "main" }, ask: scriptedAsk({ status: "no_answer", reason }).ask })!;
    expect(await tool.execute(validInput)).toEqual({ status: "no_answer", reason });
  });

  it("maps delivery_failed", async () => {
    const tool = createAskUserTool({ session: { kind: "main" }, ask: scriptedAsk({ status: "delivery_failed", reason: "no bot" }).ask })!;
    expect(await tool.execute(validInput)).toEqual({ status: "delivery_failed", reason: "no bot" });
  });

  it("returns a clear error naming every field for invalid input, without asking", async () => {
    const { ask, asked } = scriptedAsk({ status: "no_answer", reason: "expired" });
    const tool = createAskUserTool({ session: { kind: "main" }, ask })!;
    const result = await tool.execute({ questions: [{ ...validInput.questions[0], id: "Bad", options: [{ label: "Other" }] }], extra: 1 });
    expect(result.status).toBe("invalid_input");
    if (result.status !== "invalid_input") return;
    expect(result.issues.map((i) => i.path).sort()).toEqual(["extra", "questions[0].id", "questions[0].options", "questions[0].options[0].label"]);
    expect(result.message).toContain("questions[0].options: must have 2 to 4 options (got 1)");
    expect(asked).toHaveLength(0);
  });

  it("cancels the question when the signal aborts, and returns no_answer/aborted", async () => {
    let sawAbort = false;
    const ask: AskFunction = (_input, { signal }) =>
      new Promise((resolve) => {
        signal?.addEventListener("abort", () => {
          sawAbort = true;
          resolve({ status: "no_answer", reason: "cancelled" });
        });
      });
    const tool = createAskUserTool({ session: { kind: "main" }, ask })!;
    const controller = new AbortController();
    const pending = tool.execute(validInput, { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    expect(await pending).toEqual({ status: "no_answer", reason: "aborted" });
    expect(sawAbort).toBe(true);
  });

  it("returns aborted at once for an already-aborted signal, without asking", async () => {
    const { ask, asked } = scriptedAsk({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    const tool = createAskUserTool({ session: { kind: "main" }, ask })!;
    expect(await tool.execute(validInput, { signal: AbortSignal.abort() })).toEqual({ status: "no_answer", reason: "aborted" });
    expect(asked).toHaveLength(0);
  });

  it("refuses an ask() outcome that is not a result", async () => {
    const tool = createAskUserTool({ session: { kind: "main" }, ask: async () => ({ status: "maybe" }) as never })!;
    await expect(tool.execute(validInput)).rejects.toThrow(/not an ask_user result/);
  });
});
