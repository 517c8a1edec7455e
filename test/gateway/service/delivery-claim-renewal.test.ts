/**
 * A send that waits in the platform's queue keeps its delivery claim (issue 18 §4): the bot renews the claim while
 * the platform answers its other calls, so neither another bot process nor the gateway's delivery watch takes the
 * copy for lost. A send that hangs while nothing else moves still lets its lease lapse (test/gateway/service/delivery-claims.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDeliveryLoop, type SurfaceAdapter } from "../../../src/bridge/delivery.ts";
import { createRecordCache } from "../../../src/bridge/record-cache.ts";
import { sendFailureReason, sendRetryDelayMs } from "../../../src/bridge/send-retry.ts";
import { connectGateway, type GatewayClient } from "../../../src/client/index.ts";
import type { QuestionRecord, Target } from "../../../src/record/record.ts";
import { oneQuestion, sleep, TOKEN, useTestGateway } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";

const gateway = useTestGateway({ DELIVERY_TIMEOUT_SECONDS: 30 });
const clients: GatewayClient[] = [];

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

/** A bot process whose sends to `slowChat` take `slowMs` (queued behind a rate limit); others go at once. */
async function startBot(name: string, { slowChat, slowMs = 0, claimLeaseMs }: { slowChat?: string; slowMs?: number; claimLeaseMs: number }) {
  const client = await connectGateway({ url: gateway.url, token: TOKEN });
  clients.push(client);
  const sends: string[] = [];
  const adapter: SurfaceAdapter = {
    surface: "telegram",
    async sendPrompt(record: QuestionRecord, target: Target) {
      sends.push(`${record.id}:${target.chat}`);
      if (target.chat === slowChat) await sleep(slowMs);
      return `${name}-${sends.length}`;
    },
    async updatePrompt() {},
  };
  await createDeliveryLoop({ client, adapter, cache: createRecordCache(), claimant: name, claimLeaseMs }).start();
  return { sends };
}

describe("delivery claims of queued sends", () => {
  it("a send queued for 4 leases keeps its claim while the platform answers other sends: no second bot sends it", { timeout: 20_000 }, async () => {
    const queued = await startBot("bot-queued", { slowChat: "slow", slowMs: 4_000, claimLeaseMs: 1_000 });
    const asker = await connectGateway({ url: gateway.url, token: TOKEN });
    clients.push(asker);
    const { id } = await asker.request(oneQuestion({ targets: [{ surface: "telegram", chat: "slow" }] }));
    await waitUntil(() => (queued.sends.length === 1 ? true : undefined), "the first bot's send");
    const other = await startBot("bot-other", { claimLeaseMs: 1_000 });
    // The queue moves: other questions go out meanwhile.
    for (let i = 0; i < 12; i++) {
      await asker.request(oneQuestion({ targets: [{ surface: "telegram", chat: `fast-${i}` }] }));
      await sleep(300);
    }
    const record = await waitUntil(async () => {
      const r = await asker.get(id);
      return r.deliveries.length === 1 ? r : undefined;
    }, "the queued copy delivered");
    await sleep(1_500);
    expect(record.deliveries[0]?.messageRef).toMatch(/^bot-queued-/);
    expect(other.sends.filter((s) => s.startsWith(id))).toEqual([]);
    expect(queued.sends.filter((s) => s.startsWith(id))).toEqual([`${id}:slow`]);
  });

  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [6, 32_000],
    [7, 60_000],
    [40, 60_000],
  ])("failed try %i waits %i ms before the next", (attempt, ms) => {
    expect(sendRetryDelayMs(attempt)).toBe(ms);
  });
});

describe("the reason a failed send gives the gateway", () => {
  it("names the platform and the network error when the call never reached it, and never a URL", () => {
    const refused = Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }) });
    expect(sendFailureReason(refused, "discord")).toBe("discord: cannot reach the Discord API: ECONNREFUSED");
    const slack = Object.assign(new Error("A request error occurred: getaddrinfo ENOTFOUND slack.com"), { code: "slack_webapi_request_error", original: { code: "ENOTFOUND" } });
    expect(sendFailureReason(slack, "slack")).toBe("slack: cannot reach the Slack API: ENOTFOUND");
    expect(sendFailureReason(new Error("request to https://api.telegram.org/bot123:SECRET/sendMessage failed"), "telegram")).toBe("request to <url> failed");
    expect(sendFailureReason(new Error("502 Bad Gateway"), "slack")).toBe("502 Bad Gateway");
  });
});
