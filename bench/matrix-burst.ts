/**
 * Benchmark 17: a burst of 600 questions to 60 Matrix rooms under a homeserver's limit on the bot account's sends
 * (test/platforms/matrix/matrix-limits.ts: a token bucket per sender, as Synapse's `rc_message`), as benchmarks 11 and
 * 12 do for Discord and Slack. The real gateway and the real bot (matrix-js-sdk, the bot's rate gate) talk to the
 * tests' fake homeserver behind a proxy that enforces the limit.
 *
 * Minimum: the burst at once, the rest at the rate: (N − burst) / rate. Zero lost: every question pending with exactly
 * one delivery; none sent twice (accepted prompt sends = deliveries).
 */
import { startMatrixBot } from "../bots/matrix/index.ts";
import { loadConfig } from "../src/runtime/config.ts";
import { startApiProxy } from "../test/fakes/api-proxy.ts";
import { startFakeMatrix } from "../test/platforms/matrix/fake-api.ts";
import { enforceMatrixLimits, MATRIX_LIMITS, matrixMinimumMs, type MatrixLimits } from "../test/platforms/matrix/matrix-limits.ts";
import { BENCH_TOKEN, tempDir } from "./lib/procs.ts";
import type { BenchResult } from "./lib/result.ts";
import { benchBurst, type LimitedPlatform, type PlatformBurstOptions } from "./platform-burst.ts";

async function limitedMatrix(chats: number, limits: MatrixLimits): Promise<LimitedPlatform> {
  const fake = await startFakeMatrix();
  const people = [
    { id: "@ada:fake.test", name: "Ada" },
    { id: "@grace:fake.test", name: "Grace" },
  ];
  const rooms = Array.from({ length: chats }, (_, i) => `!burst${i}:fake.test`);
  for (const room of rooms) fake.addRoom(room, people);
  const proxy = await startApiProxy(fake.baseUrl);
  const enforced = enforceMatrixLimits(proxy, limits);
  return {
    chats: rooms,
    // Each run its own sync token: DATA_DIR is the gateway's, and a token from an earlier run's fake means nothing.
    config: (gatewayUrl) =>
      loadConfig({ GATEWAY_URL: gatewayUrl, GATEWAY_TOKEN: BENCH_TOKEN, DATA_DIR: tempDir("aub-mx-bench-"), MATRIX_HOMESERVER_URL: proxy.origin, MATRIX_ACCESS_TOKEN: fake.token }),
    startBot: (config) => startMatrixBot(config, { log: () => {} }),
    accepted: enforced.accepted,
    refused: enforced.refused,
    async close() {
      await proxy.close();
      await fake.close();
    },
  };
}

export function benchMatrixBurst(options: PlatformBurstOptions & { limits?: MatrixLimits } = {}): Promise<BenchResult> {
  const limits = options.limits ?? MATRIX_LIMITS;
  const minimumMs = matrixMinimumMs(options.questions ?? 600, limits);
  const note = `limits: the bot account's sends ${limits.perSecond}/s, bursts of ${limits.burst} (a token bucket per sender, as Synapse's rc_message raised for a bot; ${limits.graceMs ?? 50} ms grace), 429 M_LIMIT_EXCEEDED with retry_after_ms; the bot's rate gate`;
  return benchBurst(17, "Matrix", "matrix", (chats) => limitedMatrix(chats, limits), minimumMs, note, options);
}
