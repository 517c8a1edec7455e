import type { Config } from "../config.ts";
import { connectGateway, type GatewayClient } from "./index.ts";
import { readTokenFile } from "../token-file.ts";

/** Where clients find the gateway: GATEWAY_URL, or the local gateway's host and port. */
export function gatewayUrl(config: Config): string {
  if (config.GATEWAY_URL) return config.GATEWAY_URL;
  const host = ["0.0.0.0", "::", ""].includes(config.GATEWAY_HOST) ? "127.0.0.1" : config.GATEWAY_HOST;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.GATEWAY_PORT}`;
}

/** The client token: GATEWAY_TOKEN, or the one a local gateway saved under DATA_DIR. */
export function gatewayToken(config: Config): string {
  const token = config.GATEWAY_TOKEN ?? readTokenFile(config.DATA_DIR);
  if (!token) {
    throw new Error(`GATEWAY_TOKEN: is required (set it in .env, or run the gateway once with this DATA_DIR (${config.DATA_DIR}) so it writes one)`);
  }
  return token;
}

export function connectFromConfig(config: Config, options: { retryInitial?: boolean; log?: (m: string, e?: unknown) => void } = {}): Promise<GatewayClient> {
  return connectGateway({ url: gatewayUrl(config), token: gatewayToken(config), ...options });
}
