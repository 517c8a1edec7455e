/**
 * `ask` on a terminal shows each target's delivery trouble with the reason its bot gave (issue 18, §2): a target
 * retrying or failed is printed when its state changes, and the countdown names it with its state.
 */
import { describe, expect, it } from "vitest";
import { createAskProgress } from "../../src/cli/ask-progress.ts";
import type { QuestionRecord } from "../../src/record/record.ts";

describe("ask progress: target states", () => {
  it("prints a retrying or failed target once per change, with the reason, and in the countdown", async () => {
    const listeners = new Map<string, (arg: any) => void>();
    const record = {
      id: "q1",
      targets: [{ surface: "telegram", chat: "42" }, { surface: "discord", chat: "7" }],
      deliveries: [],
    } as unknown as QuestionRecord;
    const client = {
      on: (event: string, listener: (arg: any) => void) => (listeners.set(event, listener), () => listeners.delete(event)),
      get: async () => record,
    };
    const lines: string[] = [];
    const progress = createAskProgress({ client: client as never, gatewayUrl: "ws://gw.example:8787/ws", err: (l) => lines.push(l), intervalMs: 20, now: () => 0 });
    progress.onRequested({ id: "q1", expiresAtMs: 60_000 });
    await new Promise((r) => setTimeout(r, 5));
    const retrying = { surface: "telegram", chat: "42", state: "retrying", reason: "cannot reach the Bot API: ECONNREFUSED", atMs: 1 };
    const update = listeners.get("question.updated")!;
    update({ ...record, targetStates: [retrying] });
    update({ ...record, targetStates: [retrying] });
    expect(lines.filter((l) => l.startsWith("telegram:42"))).toEqual(["telegram:42 is retrying: cannot reach the Bot API: ECONNREFUSED"]);
    update({ ...record, targetStates: [retrying, { surface: "discord", chat: "7", state: "failed", reason: "Cannot send messages to this user (50007)", atMs: 2 }] });
    expect(lines).toContain("discord:7 cannot receive it: Cannot send messages to this user (50007)");
    lines.length = 0;
    await new Promise((r) => setTimeout(r, 60));
    expect(lines).toContain(
      "waiting, 1m 0s left (still trying telegram:42 (retrying: cannot reach the Bot API: ECONNREFUSED), discord:7 (failed: Cannot send messages to this user (50007)))",
    );
    progress.stop();
  });
});
