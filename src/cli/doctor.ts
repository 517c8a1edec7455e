/**
 * `ask-user-bridge doctor` (issue 36 §2): what is set up and what is not, each line a check with ✓ or ✗ and, for a
 * ✗, what to do. The configuration, DATA_DIR's modes, the gateway (reachable, the token accepted, its store), each
 * configured bot (connected to the gateway, and its credentials against the platform's API), GATEWAY_PUBLIC_URL, and
 * whether a client started in another folder (`--from DIR`) would find the gateway. Exit 1 on any ✗.
 */
import { readdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { gatewayEndpoint } from "../client/from-config.ts";
import { PLATFORM_LIST } from "../platforms/descriptors.ts";
import { checkCredentials, networkReason } from "../platforms/kit/credential-check.ts";
import type { Config } from "../runtime/config.ts";
import { findGateway } from "../runtime/gateway-registry.ts";
import { readTokenFile } from "../runtime/token-file.ts";
import { parseCommandArgs } from "./args.ts";
import type { CliIO } from "./io.ts";

export const DOCTOR_HELP = `Usage: ask-user-bridge doctor [--from DIR] [--json]

Checks the set-up and prints one line per check, ✓ or ✗, with what to do about each ✗ (exit 1 when there is one):
the configuration; DATA_DIR's modes (0700, its files 0600); the gateway this CLI reaches (it answers, the token is
accepted, its store is ready); each configured bot (connected to the gateway, and its credentials accepted by the
platform's API); GATEWAY_PUBLIC_URL (it answers); and with --from DIR, whether a client started in DIR (Claude
Code's hook, the MCP server) would find the gateway. Secrets are never printed.

  --from DIR   also check that a client started in DIR finds the gateway
  --json       print the checks as JSON ({ ok, checks: [{ name, status, detail, fix? }] })`;

/** How long one network check may take. */
const CHECK_TIMEOUT_MS = 10_000;

export interface DoctorCheck {
  name: string;
  status: "ok" | "fail" | "skipped";
  detail: string;
  /** What to do, for a failed check. */
  fix?: string;
}

const ok = (name: string, detail: string): DoctorCheck => ({ name, status: "ok", detail });
const fail = (name: string, detail: string, fix: string): DoctorCheck => ({ name, status: "fail", detail, fix });
const skipped = (name: string, detail: string): DoctorCheck => ({ name, status: "skipped", detail });

async function fetchWithin(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
}

const reason = networkReason;

/** DATA_DIR private to its user: the folder 0700, every file in it 0600 (a SQLite store only). */
function dataDirCheck(config: Config): DoctorCheck {
  const name = "DATA_DIR";
  if (config.DATABASE_URL || config.STORE === "memory") return skipped(name, `not used for the store (${config.DATABASE_URL ? "PostgreSQL at DATABASE_URL" : "STORE=memory"})`);
  const dir = resolve(config.DATA_DIR);
  let mode: number;
  try {
    mode = statSync(dir).mode & 0o777;
  } catch {
    return skipped(name, `${dir} does not exist yet (the first start makes it, 0700)`);
  }
  const open = [...(mode & 0o077 ? [`${dir} (${mode.toString(8)})`] : [])];
  for (const file of readdirSync(dir)) {
    const fileMode = statSync(join(dir, file)).mode & 0o777;
    if (fileMode & 0o077) open.push(`${file} (${fileMode.toString(8)})`);
  }
  if (open.length > 0) return fail(name, `readable by others: ${open.join(", ")}`, `chmod 700 ${dir} && chmod 600 ${dir}/* (the gateway tightens them itself at its next start)`);
  return ok(name, `${dir} is private (0700, files 0600)`);
}

interface Ready {
  ready?: boolean;
  store?: { ok?: boolean; ms?: number };
  bots?: Array<{ surface?: string }>;
}

/** The gateway: where it is, that it answers, that the token is accepted, and its /readyz. */
async function gatewayChecks(config: Config): Promise<{ checks: DoctorCheck[]; ready?: Ready }> {
  let endpoint: { url: string; token: string };
  try {
    endpoint = gatewayEndpoint(config);
  } catch (error) {
    return { checks: [fail("gateway", (error as Error).message, "start it (`ask-user-bridge start`: it records itself for clients in any folder), or set GATEWAY_URL and GATEWAY_TOKEN")] };
  }
  let ready: Ready;
  try {
    ready = (await (await fetchWithin(`${endpoint.url}/readyz`)).json()) as Ready;
  } catch (error) {
    return { checks: [fail("gateway", `${endpoint.url} does not answer (${reason(error)})`, "start it: `ask-user-bridge start` (or `npm start` in the clone)")] };
  }
  const checks = [ok("gateway", `answers at ${endpoint.url}`)];
  try {
    const res = await fetchWithin(`${endpoint.url}/rpc/question.list`, { method: "POST", headers: { authorization: `Bearer ${endpoint.token}`, "content-type": "application/json" }, body: JSON.stringify({ limit: 1 }) });
    checks.push(res.ok ? ok("token", "accepted by the gateway") : fail("token", `refused by the gateway (HTTP ${res.status})`, "use the gateway's own token: GATEWAY_TOKEN as it has it, or its DATA_DIR's gateway-token file"));
  } catch (error) {
    checks.push(fail("token", `could not be tried (${reason(error)})`, "check that the gateway is running"));
  }
  checks.push(ready.store?.ok ? ok("store", `ready (answered in ${ready.store.ms ?? "?"} ms; migrated when the gateway started)`) : fail("store", "the gateway's store does not answer", "see the gateway's log: DATABASE_URL unreachable, or DATA_DIR not writable"));
  return { checks, ready };
}

/** Each configured platform: its bot connected to the gateway, and its credentials against the platform's API. */
async function platformChecks(config: Config, ready: Ready | undefined): Promise<DoctorCheck[]> {
  const env = config as unknown as Record<string, unknown>;
  const connected = new Set((ready?.bots ?? []).map((bot) => bot.surface));
  const configured = PLATFORM_LIST.filter((platform) => Boolean(env[platform.tokenVar]));
  if (configured.length === 0) return [skipped("bots", `none configured (set ${PLATFORM_LIST.map((p) => p.tokenVar).join(", ")} in .env to add one); the web needs none`)];
  const checks: DoctorCheck[] = [];
  for (const platform of configured) {
    if (ready) {
      checks.push(
        connected.has(platform.surface)
          ? ok(`${platform.surface} bot`, "connected to the gateway")
          : fail(`${platform.surface} bot`, "not connected to the gateway", `\`ask-user-bridge start\` runs it with the gateway (or \`ask-user-bridge bot ${platform.surface}\` alone); its log says why it stopped`),
      );
    }
    const name = `${platform.surface} credentials`;
    const verdict = await checkCredentials(platform, env, CHECK_TIMEOUT_MS);
    if (verdict.status === "uncheckable") checks.push(skipped(name, `doctor cannot check ${platform.title}'s credentials with one call; the bot's log says whether ${platform.apiName} takes them`));
    else if (verdict.status === "incomplete") checks.push(fail(name, "incomplete", `set every variable the bot needs: ${platform.botHelp}`));
    else if (verdict.status === "ok") checks.push(ok(name, `accepted by ${platform.apiName}: ${verdict.who}`));
    else if (verdict.status === "refused") checks.push(fail(name, `refused by ${platform.apiName}: ${verdict.why}`, `check ${platform.tokenVar} (and the variables beside it: ${platform.botHelp})`));
    else checks.push(fail(name, `${platform.apiName} could not be reached (${verdict.why})`, "check this machine's network, or the API address variable"));
  }
  return checks;
}

async function publicUrlCheck(config: Config): Promise<DoctorCheck> {
  const name = "GATEWAY_PUBLIC_URL";
  if (!config.GATEWAY_PUBLIC_URL) return skipped(name, "unset: answer links and the Control UI open only on this machine (a phone needs it)");
  const url = `${config.GATEWAY_PUBLIC_URL.replace(/\/+$/u, "")}/healthz`;
  try {
    const res = await fetchWithin(url);
    return res.ok ? ok(name, `${url} answers`) : fail(name, `${url} answers HTTP ${res.status}`, "point it (or your proxy) at this gateway");
  } catch (error) {
    return fail(name, `${url} does not answer (${reason(error)})`, "point it (or your proxy) at this gateway, reachable from the phones that open its links");
  }
}

/**
 * Would a client started in `dir` find the gateway, with this environment (not `dir`'s own .env, which only the
 * entry point reads): GATEWAY_TOKEN, the token under DATA_DIR as `dir` resolves it, or the gateway recorded last.
 */
function fromCheck(config: Config, dir: string): DoctorCheck {
  const name = `a client in ${dir}`;
  if (config.GATEWAY_TOKEN) return ok(name, "uses GATEWAY_TOKEN from its environment");
  const dataDir = isAbsolute(config.DATA_DIR) ? config.DATA_DIR : resolve(dir, config.DATA_DIR);
  if (readTokenFile(dataDir)) return ok(name, `finds the token under ${dataDir}`);
  const found = findGateway(config.GATEWAY_NAME);
  if (found?.running && found.token) return ok(name, `finds the gateway recorded as "${found.name}" (${found.url})`);
  const why = !found ? "no gateway is recorded for this user" : !found.running ? `the gateway recorded as "${found.name}" is not running` : `the gateway recorded as "${found.name}" runs on its own GATEWAY_TOKEN`;
  return fail(name, `would not find the gateway: no token under ${dataDir}, and ${why}`, found && found.running ? "give the client the same GATEWAY_TOKEN (its environment, or a .env in that folder)" : "start the gateway (`ask-user-bridge start` records itself), then try again");
}

const MARKS = { ok: "✓", fail: "✗", skipped: "-" } as const;

export async function runDoctor(argv: string[], config: Config, io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(argv, { from: { type: "string" }, json: { type: "boolean" } });
  if (values.help) return io.out(DOCTOR_HELP), 0;
  const configured = PLATFORM_LIST.filter((p) => Boolean((config as unknown as Record<string, unknown>)[p.tokenVar])).map((p) => p.surface);
  const store = config.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : config.STORE === "memory" ? "memory" : `SQLite under ${resolve(config.DATA_DIR)}`;
  const checks: DoctorCheck[] = [ok("configuration", `read; store: ${store}; bots: ${configured.join(", ") || "none"}`), dataDirCheck(config)];
  const gateway = await gatewayChecks(config);
  checks.push(...gateway.checks, ...(await platformChecks(config, gateway.ready)), await publicUrlCheck(config));
  if (values.from !== undefined) checks.push(fromCheck(config, resolve(values.from)));
  const failed = checks.some((check) => check.status === "fail");
  if (values.json) io.out(JSON.stringify({ ok: !failed, checks }, null, 2));
  else {
    const width = Math.max(...checks.map((check) => check.name.length));
    for (const check of checks) {
      io.out(`${MARKS[check.status]} ${check.name.padEnd(width)}  ${check.detail}`);
      if (check.fix) io.out(`  ${" ".repeat(width)}  fix: ${check.fix}`);
    }
  }
  return failed ? 1 : 0;
}
