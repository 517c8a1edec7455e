import { connectGateway, type GatewayClient } from "../src/client/index.ts";
import type { Config } from "../src/config.ts";
import { gatewayToken, gatewayUrl } from "../src/cli/connect.ts";

export type Log = (message: string, error?: unknown) => void;

export function createLog(name: string): Log {
  return (message, error) => {
    const detail = error instanceof Error ? `: ${error.message}` : error === undefined ? "" : `: ${String(error)}`;
    console.error(`${new Date().toISOString()} [${name}] ${message}${detail}`);
  };
}

/** Bots keep running while the gateway is down: the first connection retries too. */
export function connectBotToGateway(config: Config, log: Log): Promise<GatewayClient> {
  return connectGateway({ url: gatewayUrl(config), token: gatewayToken(config), retryInitial: true, offlineWaitMs: 5_000, log });
}

export interface RunningBot {
  stop(): Promise<void>;
}
