import type { Config } from "../runtime/config.ts";
import { connectGateway, type GatewayClient } from "./index.ts";
import { readTokenFile } from "../runtime/token-file.ts";
import { localGatewayUrl } from "../runtime/local-url.ts";
import { findGateway, registryPath } from "../runtime/gateway-registry.ts";

/** Where clients find the gateway: GATEWAY_URL, or the local gateway's host and port. */
export function gatewayUrl(config: Config): string {
  return config.GATEWAY_URL || localGatewayUrl(config.GATEWAY_HOST, config.GATEWAY_PORT);
}

/** No GATEWAY_TOKEN, no token file under DATA_DIR and no recorded gateway: a configuration problem, as one line. */
export class MissingTokenError extends Error {
  readonly code = "NO_GATEWAY_TOKEN";
  constructor(dataDir: string, why = `and no gateway recorded in ${registryPath()}: start one with \`ask-user-bridge start\``) {
    super(`no gateway token: set GATEWAY_TOKEN or run on the gateway's machine (with its DATA_DIR; ${dataDir}/gateway-token was not found, ${why})`);
    this.name = "MissingTokenError";
  }
}

/**
 * Where the gateway is and the token for it. The client's own settings first: GATEWAY_TOKEN, or the token a local
 * gateway saved under DATA_DIR, at GATEWAY_URL (or GATEWAY_HOST:GATEWAY_PORT). With neither token, or with a gateway
 * named (GATEWAY_NAME, --gateway), the gateway this user started (that one, else the last: gateway-registry.ts), so
 * a client in any folder finds it.
 */
export function gatewayEndpoint(config: Config): { url: string; token: string } {
  // A gateway named on purpose (--gateway NAME) is that one, not the token a DATA_DIR in this folder happens to hold.
  const named = config.GATEWAY_NAME !== undefined && !config.GATEWAY_URL;
  const own = config.GATEWAY_TOKEN ?? (named ? undefined : readTokenFile(config.DATA_DIR));
  if (own) return { url: gatewayUrl(config), token: own };
  const recorded = findGateway(config.GATEWAY_NAME);
  // A gateway that has stopped is no place to ask; its record stays until the next start.
  const found = recorded?.running ? recorded : undefined;
  if (recorded && !found) throw new MissingTokenError(config.DATA_DIR, `and the gateway recorded as "${recorded.name}" (${recorded.url}, started in ${recorded.gateway.cwd}) is not running: start it again`);
  // GATEWAY_URL names the gateway: a recorded one elsewhere is not it.
  if (found && config.GATEWAY_URL && found.url !== config.GATEWAY_URL.replace(/\/+$/u, "")) throw new MissingTokenError(config.DATA_DIR, `and the recorded gateway is at ${found.url}, not GATEWAY_URL`);
  if (found?.token) return { url: found.url, token: found.token };
  if (found) {
    const where = `the gateway recorded as "${found.name}" (${found.url}, started in ${found.gateway.cwd})`;
    throw new MissingTokenError(config.DATA_DIR, found.tokenFrom ? `and the token file of ${where}, ${found.tokenFrom}, could not be read` : `and ${where} uses its own GATEWAY_TOKEN: set the same one here`);
  }
  if (config.GATEWAY_NAME) throw new MissingTokenError(config.DATA_DIR, `and no gateway named "${config.GATEWAY_NAME}" is recorded in ${registryPath()}`);
  throw new MissingTokenError(config.DATA_DIR);
}

/** The client token (see gatewayEndpoint). */
export function gatewayToken(config: Config): string {
  return gatewayEndpoint(config).token;
}

export function connectFromConfig(config: Config, options: { retryInitial?: boolean; log?: (m: string, e?: unknown) => void } = {}): Promise<GatewayClient> {
  return connectGateway({ ...gatewayEndpoint(config), ...options });
}
