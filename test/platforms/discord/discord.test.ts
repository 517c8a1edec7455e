import { describe, expect, it } from "vitest";
import type { FakeDiscord } from "./fake-api.ts";
import { CALLBACK_TYPE } from "./discord-payloads.ts";
import { createDiscordHarness } from "./harness.ts";
import { discordDeliveryKit } from "./delivery-kit.ts";
import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";

const scenarioFakes: FakeDiscord[] = [];
runBotScenarios("discord", async () => {
  const h = await createDiscordHarness();
  scenarioFakes.push(h.fake);
  return h;
});
runDeliveryScenarios("discord", discordDeliveryKit);
runFollowUpScenarios("discord", createDiscordHarness, "smoke");

describe("discord: the scenario suite ran against Discord's rules", () => {
  it("every interaction was acknowledged inside 3 s, and every bot message carried allowed_mentions with no parse", () => {
    const fake = scenarioFakes[0]!;
    expect(fake.interactions().length).toBeGreaterThan(10);
    for (const interaction of fake.interactions()) {
      expect(interaction.callback, `interaction ${interaction.id}`).toBeDefined();
      expect(interaction.callback!.atMs - interaction.createdAtMs).toBeLessThan(3_000);
    }
    const writes = fake.calls.filter((c) => /^\/(channels\/:id\/messages|webhooks\/:id\/:token)/.test(c.route) && c.method !== "DELETE" && !c.route.includes("/reactions/"));
    expect(writes.length).toBeGreaterThan(20);
    for (const call of writes) expect(call.body.allowed_mentions?.parse, `${call.method} ${call.path}`).toEqual([]);
    const replies = fake.calls.filter((c) => c.route === "/interactions/:id/:token/callback" && c.body.type === CALLBACK_TYPE.REPLY);
    expect(replies.length).toBeGreaterThan(0);
    for (const call of replies) expect(call.body.data.allowed_mentions?.parse, call.path).toEqual([]);
    // The rate-limited send was answered 429 once, and discord.js's queue sent it again.
    expect(fake.calls.filter((c) => c.status === 429)).toHaveLength(1);
  });
});
