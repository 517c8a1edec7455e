/**
 * Whether a running bot reaches its platform's API (issue 36 §2): the descriptor's one-call credential check
 * (src/platforms/kit/credential-check.ts), made when the bot starts and then every minute, every few seconds while it
 * fails. Each change is told to the gateway (`bot.status`, again on every reconnection), whose /readyz is not ready
 * while a bot cannot reach its API, and logged as one readable line: a warning when the API is lost, info when it is
 * back. A platform with no one-call check reports `reachable: null` once and is not polled.
 */
import type { GatewayClient } from "../src/client/index.ts";
import type { Config } from "../src/runtime/config.ts";
import { backoffDelay } from "../src/kernel/backoff.ts";
import { checkCredentials, type CredentialVerdict } from "../src/platforms/kit/credential-check.ts";
import { PLATFORMS } from "../src/platforms/descriptors.ts";
import { isPlatform } from "../src/platforms/index.ts";
import type { BotPlatformStatus } from "../src/protocol/methods.ts";

export interface PlatformWatchOptions {
  config: Config;
  surface: string;
  gateway: Pick<GatewayClient, "call" | "on">;
  log: (message: string, error?: unknown) => void;
  /** Between checks while the API answers. */
  everyMs?: number;
  /** The first wait after a failed check (doubling, up to `everyMs`). */
  retryMs?: number;
}

const DEFAULT_EVERY_MS = 60_000;
const DEFAULT_RETRY_MS = 2_000;

function statusOf(verdict: CredentialVerdict, apiName: string): BotPlatformStatus {
  switch (verdict.status) {
    case "ok":
      return { reachable: true, detail: `${apiName} answers (${verdict.who})` };
    case "unreachable":
      return { reachable: false, detail: `cannot reach ${apiName}: ${verdict.why}` };
    case "refused":
      return { reachable: false, detail: `${apiName} refuses the credentials: ${verdict.why}` };
    default:
      return { reachable: null, detail: `the bot cannot check ${apiName} with one call` };
  }
}

export function watchPlatform({ config, surface, gateway, log, everyMs = DEFAULT_EVERY_MS, retryMs = DEFAULT_RETRY_MS }: PlatformWatchOptions): { stop(): void } {
  if (!isPlatform(surface)) return { stop() {} };
  const platform = PLATFORMS[surface];
  let status: BotPlatformStatus | undefined;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const report = () => {
    if (status) gateway.call("bot.status", { platform: status }).catch(() => {}); // sent again on the next connection
  };
  const offConnected = gateway.on("connected", report);

  async function check(): Promise<void> {
    const verdict = await checkCredentials(platform, config as unknown as Record<string, unknown>);
    if (stopped) return;
    const next = statusOf(verdict, platform.apiName);
    const changed = next.reachable !== status?.reachable;
    if (changed && next.reachable === false) log(`${next.detail}; checking again every few seconds (the gateway's /readyz says not ready until it answers)`, verdict.status === "unreachable" || verdict.status === "refused" ? verdict.why : undefined);
    else if (changed && next.reachable === true && status?.reachable === false) log(`reached ${platform.apiName} again`);
    if (changed || next.detail !== status?.detail) {
      status = next;
      report();
    }
    if (next.reachable === null) return;
    failures = next.reachable ? 0 : failures + 1;
    timer = setTimeout(() => void check(), failures === 0 ? everyMs : Math.min(everyMs, backoffDelay(failures - 1, retryMs, everyMs)));
    timer.unref();
  }

  void check();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      offConnected();
    },
  };
}
