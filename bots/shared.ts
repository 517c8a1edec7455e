import { createBridge, type Bridge, type BridgeOptions, type SurfaceAdapter } from "../src/bridge/index.ts";
import { connectGateway, type GatewayClient } from "../src/client/index.ts";
import type { Config } from "../src/runtime/config.ts";
import type { BotStopError } from "../src/kernel/errors.ts";
import { gatewayEndpoint } from "../src/client/from-config.ts";
import { watchPlatform } from "./platform-watch.ts";

export type Log = (message: string, error?: unknown) => void;

/** The WebSocket implementation a bot's SDK may need (Node 20 has no global one): the core's own, `ws`. */
export { WebSocket as NodeWebSocket } from "ws";

export function createLog(name: string): Log {
  return (message, error) => {
    const detail = error instanceof Error ? `: ${error.message}` : error === undefined ? "" : `: ${String(error)}`;
    console.error(`${new Date().toISOString()} [${name}] ${message}${detail}`);
  };
}

/** Bots keep running while the gateway is down: the first connection retries too. */
export function connectBotToGateway(config: Config, log: Log, surface?: string): Promise<GatewayClient> {
  return connectGateway({ ...gatewayEndpoint(config), retryInitial: true, offlineWaitMs: 5_000, log, ...(surface ? { surface } : {}) });
}

export interface RunningBot {
  stop(): Promise<void>;
  /** Settles when the bot cannot go on (its token rejected, another process polling with it): the CLI exits. */
  failed?: Promise<BotStopError>;
}

/** One platform's parts, as its `index.ts` hands them to `startBridgeBot`. */
export interface BridgeBot<Running extends RunningBot> {
  config: Config;
  log: Log;
  /** The bot logs its platform connection's losses itself: the reachability check (platform-watch.ts) then only reports. */
  logsConnection?: boolean;
  /** The platform's allow-list (`<PLATFORM>_ALLOWED_USERS`). */
  allowedUsers: readonly string[];
  otherOpens: BridgeOptions["otherOpens"];
  adapter: SurfaceAdapter;
  /** The platform's escaping, as its renderer uses it (`toTelegramText`…): every text the bridge says goes through it. */
  toPlatformText: BridgeOptions["toPlatformText"];
  /** The bridge's time and timers (default the real clock; tests hand a virtual one). */
  clock?: BridgeOptions["clock"];
  /** Registers the platform's handlers: every button press, modal submit and typed message goes to the bridge. */
  listen(bridge: Pick<Bridge, "handle" | "sent" | "refused" | "redeliver">): void;
  /**
   * Connects to the platform and starts receiving. Calls `deliver()` (the bridge's first sync with the gateway) where
   * prompts may start to go out, and logs that it is ready after that. Cleans up after itself when it throws.
   */
  start(deliver: () => Promise<void>): Promise<Running>;
}

/**
 * The wiring every bot shares: connect to the gateway, create the bridge, register the platform's handlers and
 * start the platform, which delivers when it is ready. Stopping stops the platform, then closes the gateway
 * connection; a failed start closes it too.
 */
export async function startBridgeBot<Running extends RunningBot>(bot: BridgeBot<Running>): Promise<Running> {
  const { config, log } = bot;
  // The bot's surface, declared on every connection: the gateway then knows a bot of it is connected (issue 30).
  const gateway = await connectBotToGateway(config, log, bot.adapter.surface);
  const bridge = createBridge({ client: gateway, adapter: bot.adapter, allowedUsers: bot.allowedUsers, otherOpens: bot.otherOpens, toPlatformText: bot.toPlatformText, log, ...(bot.clock ? { clock: bot.clock } : {}) });
  bot.listen(bridge);
  // Whether it reaches its platform's API, for the gateway's /readyz: from the start, while the platform connects.
  const watch = watchPlatform({ config, surface: bot.adapter.surface, gateway, log: bot.logsConnection ? () => {} : log, everyMs: config.BOT_PLATFORM_CHECK_SECONDS * 1000 });
  let platform: Running;
  try {
    platform = await bot.start(() => bridge.start());
  } catch (error) {
    watch.stop();
    gateway.close();
    throw error;
  }
  return {
    ...platform,
    async stop() {
      watch.stop();
      await bridge.stop(); // while the gateway link is up: unsent copies' claims go back first
      await platform.stop();
      gateway.close();
    },
  };
}
