import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { preparePrivateDir } from "./data-dir.ts";

/** The file under DATA_DIR that holds the generated token. */
export const TOKEN_FILE_NAME = "gateway-token";

/** The token the gateway wrote under DATA_DIR when GATEWAY_TOKEN was unset, if any. */
export function readTokenFile(dataDir: string): string | undefined {
  try {
    return readFileSync(join(dataDir, TOKEN_FILE_NAME), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Returns the configured token, or the one saved under DATA_DIR, or a new one saved there (mode 0600). */
export function ensureGatewayToken(configured: string | undefined, dataDir: string): { token: string; generated: boolean } {
  if (configured) return { token: configured, generated: false };
  const existing = readTokenFile(dataDir);
  if (existing) return { token: existing, generated: false };
  const token = randomBytes(24).toString("hex");
  preparePrivateDir(dataDir);
  writeFileSync(join(dataDir, TOKEN_FILE_NAME), `${token}\n`, { mode: 0o600 });
  return { token, generated: true };
}
