/**
 * The three cross-platform suites on the in-memory platform (the real bridge and gateway, no framework), and what
 * the platform recorded of the bridge's effects.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcOk } from "../../helpers/gateway.ts";
import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { scenarioTools, waitUntil } from "../../scenarios/tools.ts";
import { createMemoryHarness, memoryDeliveryKit, type MemoryHarness } from "./harness.ts";

runBotScenarios("memory", createMemoryHarness);
runDeliveryScenarios("memory", memoryDeliveryKit);
runFollowUpScenarios("memory", createMemoryHarness, "virtual");

const single = { id: "deploy_target", header: "Deployment target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };

describe("memory: the effects the bridge applied, in order", () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await createMemoryHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const ask = async () => (await rpcOk(h.gatewayUrl(), "question.request", { questions: [single], targets: [{ surface: h.surface, chat: h.chat }] })).id as string;
  const { promptOf, result } = scenarioTools(() => h);
  const opsAbout = (about: string) => h.platform.calls.filter((c) => c.about === about).map((c) => `${c.op}${c.private ? " (private)" : ""}${c.ok ? "" : " refused"}`);

  it("a credential in reply: the deletion, then the private notice; refused, the notice says it is still visible", async () => {
    const id = await ask();
    const copy = await promptOf(id);
    const before = h.platform.messages.length;
    const sent = await h.type(h.chat, h.person, "sk-live_abcdefghijklmnopqrstuvwx1234", { replyTo: copy });
    await waitUntil(() => sent.deleted(), "the credential deleted");
    const deleted = h.platform.messages[before]!;
    await waitUntil(() => opsAbout(deleted.id).length === 2, "both effects");
    expect(opsAbout(deleted.id)).toEqual(["delete", "reply (private)"]);

    h.forbidDeleting(true);
    try {
      const at = h.platform.messages.length;
      await h.type(h.chat, h.person, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", { replyTo: copy });
      const kept = h.platform.messages[at]!;
      await waitUntil(() => opsAbout(kept.id).length === 2, "both effects");
      expect(opsAbout(kept.id)).toEqual(["delete refused", "reply (private)"]);
      expect(h.privateNotices(h.person).at(-1)).toMatch(/still visible/);
    } finally {
      h.forbidDeleting(false);
    }
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  });

  it("a press: one toast, and the copy edited once into its summary", async () => {
    const id = await ask();
    const copy = await promptOf(id);
    const calls = h.platform.calls.length;
    expect(await h.press(copy, 1, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ status: "answered" });
    await waitUntil(() => h.platform.calls.slice(calls).some((c) => c.op === "editPrompt"), "the edit");
    // The edit comes from question.resolved, so it may come before or after the toast.
    expect(h.platform.calls.slice(calls).map((c) => c.op).sort()).toEqual(["editPrompt", "toast"]);
    expect(h.copy(copy.chat, copy.ref).buttons).toEqual([]);
  });
});
