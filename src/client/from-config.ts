import type { Config } from "../runtime/config.ts";
import { connectGateway, type GatewayClient } from "./index.ts";
import { readTokenFile } from "../runtime/token-file.ts";
import { localGatewayUrl } from "../runtime/local-url.ts";

/** Where clients find the gateway: GATEWAY_URL, or the local gateway's host and port. */
export function gatewayUrl(config: Config): string {
  return config.GATEWAY_URL || localGatewayUrl(config.GATEWAY_HOST, config.GATEWAY_PORT);
}

/** No GATEWAY_TOKEN and no token file under DATA_DIR: a configuration problem, reported as one line. */
export class MissingTokenError extends Error {
  readonly code = "NO_GATEWAY_TOKEN";
  constructor(dataDir: string) {
    super(`no gateway token: set GATEWAY_TOKEN or run on the gateway's machine (with its DATA_DIR; ${dataDir}/gateway-token was not found)`);
    this.name = "MissingTokenError";
  }
}

/** The client token: GATEWAY_TOKEN, or the one a local gateway saved under DATA_DIR. */
export function gatewayToken(config: Config): string {
  const token = config.GATEWAY_TOKEN ?? readTokenFile(config.DATA_DIR);
  if (!token) throw new MissingTokenError(config.DATA_DIR);
  return token;
}

export function connectFromConfig(config: Config, options: { retryInitial?: boolean; log?: (m: string, e?: unknown) => void } = {}): Promise<GatewayClient> {
  return connectGateway({ url: gatewayUrl(config), token: gatewayToken(config), ...options });
}
