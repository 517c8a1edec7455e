/**
 * Where this user's gateways are (issue 36 §1): `start` and `gateway` record their URL and where their token is in a
 * per-user file, `$XDG_CONFIG_HOME/ask-user-bridge/gateway.json` (0600, in a 0700 folder), and every client (the CLI,
 * Claude Code's hook, the MCP server, the SDK's from-config) reads it when nothing in its own environment says where
 * the gateway is. So a hook pasted into any project finds the gateway started in another folder. Never a token: the
 * file names the generated token's file; a gateway on a configured GATEWAY_TOKEN is recorded without one (its clients
 * need GATEWAY_TOKEN too, and are told so).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { readTokenFile } from "./token-file.ts";

/** The name a gateway is recorded under when `--gateway NAME` does not name it. */
export const DEFAULT_GATEWAY_NAME = "default";
/** A name `--gateway` and GATEWAY_NAME take. */
export const GATEWAY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/u;

/** One recorded gateway. */
export interface RecordedGateway {
  url: string;
  /** The generated token's file (absolute), when the gateway's token is that file's; absent on GATEWAY_TOKEN. */
  tokenFile?: string;
  /** The folder it was started in, and its process: for messages and `doctor`. */
  cwd: string;
  pid: number;
  startedAtMs: number;
}

interface Registry {
  /** The gateway started last: the one clients use when none is named. */
  last?: string;
  gateways: Record<string, RecordedGateway>;
}

/** The file, for this environment: `$XDG_CONFIG_HOME/ask-user-bridge/gateway.json`, else `~/.config/…`. */
export function registryPath(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || join(env.HOME?.trim() || homedir(), ".config");
  return join(base, "ask-user-bridge", "gateway.json");
}

function read(path: string): Registry {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<Registry>;
    const gateways = typeof parsed.gateways === "object" && parsed.gateways !== null ? parsed.gateways : {};
    return { gateways, ...(typeof parsed.last === "string" ? { last: parsed.last } : {}) };
  } catch {
    return { gateways: {} };
  }
}

/** Records a gateway under `name` as the one started last (atomically: a temp file renamed over the old one). */
export function recordGateway(name: string, gateway: RecordedGateway, env: Record<string, string | undefined> = process.env): string {
  const path = registryPath(env);
  const registry = read(path);
  registry.gateways[name] = gateway;
  registry.last = name;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(registry, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
  return path;
}

/** A recorded gateway as a client uses it: where it is, and its token (read from where the record says). */
export interface FoundGateway {
  name: string;
  url: string;
  token?: string;
  /** The token file looked in (absent: the gateway runs on a configured GATEWAY_TOKEN). */
  tokenFrom?: string;
  /** Its process is still there (the record outlives a gateway that stopped). */
  running: boolean;
  gateway: RecordedGateway;
}

/** The gateway named `name`, else the one started last; undefined when none is recorded. */
export function findGateway(name: string | undefined, env: Record<string, string | undefined> = process.env): FoundGateway | undefined {
  const registry = read(registryPath(env));
  const key = name ?? registry.last;
  const gateway = key === undefined ? undefined : registry.gateways[key];
  if (key === undefined || gateway === undefined || typeof gateway.url !== "string") return undefined;
  const found: FoundGateway = { name: key, url: gateway.url, gateway, running: isRunning(gateway.pid) };
  if (gateway.tokenFile) {
    const token = readTokenFile(dirname(gateway.tokenFile));
    return { ...found, tokenFrom: gateway.tokenFile, ...(token ? { token } : {}) };
  }
  return found;
}

/** True while process `pid` exists (EPERM: it does, as another user's). */
function isRunning(pid: unknown): boolean {
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
