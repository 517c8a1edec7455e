import { join, resolve } from "node:path";
import { deploymentSecrets, loadConfig, type Config } from "../runtime/config.ts";
import { startGateway, type RunningGateway } from "../gateway/run.ts";
import { createLogger, type Logger } from "../runtime/log.ts";
import { createControlUi, type ControlUiOptions } from "../web/index.ts";
import { createAnswerPage } from "../web/answer-page.ts";
import { parseCommandArgs } from "./args.ts";
import { superviseChild } from "./supervise.ts";
import { BOT_HOST_NODE_FLAGS } from "./bot-host.ts";
import { exitWithin, stopWithin, untilSignal } from "./shutdown.ts";
import { BOT_NAMES, type BotName } from "../platforms/surfaces.ts";
import { PLATFORM_LIST, PLATFORMS } from "../platforms/descriptors.ts";
import { hashToken, newScopedToken } from "../gateway/auth/principal.ts";
import type { CredentialStore } from "../gateway/auth/store.ts";
import type { CliIO } from "./io.ts";
import { selfCommand, shellQuote } from "./self-command.ts";
import { DEFAULT_GATEWAY_NAME, recordGateway } from "../runtime/gateway-registry.ts";
import { TOKEN_FILE_NAME } from "../runtime/token-file.ts";

type IO = CliIO;

export const GATEWAY_HELP = `Usage: ask-user-bridge gateway

Runs the gateway alone (with the Control UI at /): the durable store (SQLite under DATA_DIR by default), the WebSocket protocol at /ws
and its HTTP mirror at POST /rpc/<method>. Binds GATEWAY_HOST:GATEWAY_PORT (127.0.0.1:8787).`;

export const START_HELP = `Usage: ask-user-bridge start

Runs the gateway with the Control UI, and the bots whose tokens are set (${PLATFORM_LIST.map((p) => p.tokenVar).join(", ")})
in one child process, each bot in an error boundary of its own. A bot that crashes is restarted alone, with backoff;
the child, if it dies, is restarted too.`;

/** A database URL without its password, for logs. */
function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

/**
 * A bot-scoped credential for each bot `start` runs, made afresh each time: the ones an earlier `start` made (by
 * their name, `start:<bot>`) are revoked first, so they never pile up.
 */
async function botCredentials(store: CredentialStore, names: readonly BotName[]): Promise<Map<BotName, string>> {
  const tokens = new Map<BotName, string>();
  for (const name of names) {
    const label = `start:${name}`;
    await store.revoke(label, Date.now());
    const { id, token } = newScopedToken();
    await store.add({ id, name: label, role: `bot:${name}`, createdAtMs: Date.now() }, hashToken(token));
    tokens.set(name, token);
  }
  return tokens;
}

/** The Control UI for this configuration: it also answers to GATEWAY_PUBLIC_URL's host. */
function controlUi(config: Config) {
  return (ctx: Pick<ControlUiOptions, "token" | "checkToken" | "clientAddress" | "sessions" | "log">) =>
    createControlUi({ ...ctx, ...(config.GATEWAY_PUBLIC_URL ? { publicUrl: config.GATEWAY_PUBLIC_URL } : {}) });
}

/**
 * Where the start-up lines go: to a person at a terminal as they are; otherwise (a service manager's journal, a log
 * file) as JSON log lines through the process's logger, like every other line it writes.
 */
export function bannerWriter(io: IO, logger?: Pick<Logger, "info">): (line: string, fields?: Record<string, unknown>) => void {
  if (io.tty?.out || !logger) return (line) => io.out(line);
  return (line, fields) => (fields ? logger.info(fields, line.split("\n")[0]!.replace(/:$/u, "")) : logger.info(line));
}

/** The start-up lines: where the gateway listens, the Control UI, and where the token comes from. */
export function banner(gateway: Pick<RunningGateway, "url" | "token" | "tokenGenerated">, config: Config, io: IO, logger?: Pick<Logger, "info">): void {
  const say = bannerWriter(io, logger);
  const store = config.DATABASE_URL
    ? `PostgreSQL store at ${redactUrl(config.DATABASE_URL)}`
    : config.STORE === "memory"
      ? "in-memory store (nothing survives a restart)"
      : `SQLite store under ${config.DATA_DIR}`;
  say(`ask-user-bridge gateway listening on ${gateway.url} (${store})`);
  // A token generated just now is printed once, as a sign-in link, only to a person at a terminal (never to a log
  // file or a service manager's journal), and after the `#`, which browsers never send to a server or proxy.
  if (gateway.tokenGenerated && io.tty?.out) io.out(`Control UI: ${gateway.url}/#token=${gateway.token} (open it to sign in; this link is shown once)`);
  else say(`Control UI: ${gateway.url}/#token=<GATEWAY_TOKEN> (or paste the token into the page; a session cookie keeps you signed in)`);
  say(
    gateway.tokenGenerated
      ? `GATEWAY_TOKEN was not set: generated one and saved it to ${join(config.DATA_DIR, "gateway-token")} (clients on this machine find it there).`
      : config.GATEWAY_TOKEN
        ? "Clients authenticate with GATEWAY_TOKEN."
        : `Clients authenticate with the token saved in ${join(config.DATA_DIR, "gateway-token")}.`,
  );
}

/**
 * The variables a client in another terminal needs to reach this gateway, as the CLI reads them: where it listens
 * (when not the default), and where its token file is (when the token is not GATEWAY_TOKEN and DATA_DIR is not the
 * default: the path absolute, so the command works from any folder). Never a token.
 */
export function clientEnvFor(config: Config, listening: { port: number }): string[] {
  const defaults = loadConfig({});
  const env: string[] = [];
  if (config.GATEWAY_URL) env.push(`GATEWAY_URL=${config.GATEWAY_URL}`);
  else {
    if (config.GATEWAY_HOST !== defaults.GATEWAY_HOST) env.push(`GATEWAY_HOST=${config.GATEWAY_HOST}`);
    if (listening.port !== defaults.GATEWAY_PORT) env.push(`GATEWAY_PORT=${listening.port}`);
  }
  if (!config.GATEWAY_TOKEN && config.DATA_DIR !== defaults.DATA_DIR) env.push(`DATA_DIR=${resolve(config.DATA_DIR)}`);
  return env.map((assignment) => {
    const [name, ...value] = assignment.split("=");
    return `${name}=${shellQuote(value.join("="))}`;
  });
}

/** The command to paste into another terminal: this CLI by its absolute path, with the variables it needs. */
export function firstQuestionCommand(config: Config, listening: { port: number }): string {
  const ask = selfCommand(["ask", "--question", "Where should I deploy?", "--option", "Staging (Recommended)", "--option", "Production"]);
  return [...clientEnvFor(config, listening), ask].join(" ");
}

function firstQuestionHint(config: Config, gatewayUrl: string, say: ReturnType<typeof bannerWriter>): void {
  const where = config.GATEWAY_TOKEN ? " (with the same GATEWAY_TOKEN)" : config.DATA_DIR === loadConfig({}).DATA_DIR ? " (in this folder)" : "";
  const command = firstQuestionCommand(config, { port: Number(new URL(gatewayUrl).port) });
  say(`Ask a first question from another terminal${where}:\n  ${command}`, { command });
}

/**
 * Records this gateway for the clients of this user (gateway-registry.ts): its URL, and the generated token's file
 * when the token is that file's. A failure to write it is a warning: the gateway runs all the same.
 */
function recordForClients(gateway: Pick<RunningGateway, "url">, config: Config, logger: Pick<Logger, "debug" | "warn">): void {
  const name = config.GATEWAY_NAME ?? DEFAULT_GATEWAY_NAME;
  try {
    const path = recordGateway(name, {
      url: config.GATEWAY_URL?.replace(/\/+$/u, "") ?? gateway.url,
      ...(config.GATEWAY_TOKEN ? {} : { tokenFile: resolve(config.DATA_DIR, TOKEN_FILE_NAME) }),
      cwd: process.cwd(),
      pid: process.pid,
      startedAtMs: Date.now(),
    });
    logger.debug({ registry: path, name }, `recorded as gateway "${name}" for clients in any folder`);
  } catch (error) {
    logger.warn({ err: (error as Error).message }, "could not record this gateway for clients in other folders; they need GATEWAY_URL and GATEWAY_TOKEN or DATA_DIR");
  }
}

export async function runGateway(argv: string[], config: Config, io: IO): Promise<number> {
  const { values } = parseCommandArgs(argv, {});
  if (values.help) return io.out(GATEWAY_HELP), 0;
  const logger = createLogger("gateway", { level: config.LOG_LEVEL, secrets: deploymentSecrets(config) });
  const gateway = await startGateway(config, { webApp: controlUi(config), answerPage: createAnswerPage, logger });
  banner(gateway, config, io, logger);
  recordForClients(gateway, config, logger);
  const signal = await untilSignal();
  exitWithin(0);
  logger.info({ signal }, "shutting down");
  if ((await stopWithin(() => gateway.close())) === "timed out") logger.warn("the store or a connection did not close in time; exiting anyway");
  return 0;
}

export async function runStart(argv: string[], config: Config, io: IO): Promise<number> {
  const { values } = parseCommandArgs(argv, {});
  if (values.help) return io.out(START_HELP), 0;
  const logger = createLogger("gateway", { level: config.LOG_LEVEL, secrets: deploymentSecrets(config) });
  const botNames = BOT_NAMES.filter((name) => Boolean(config[PLATFORMS[name].tokenVar]));
  const gateway = await startGateway(config, { webApp: controlUi(config), answerPage: createAnswerPage, logger, expectedBots: botNames });
  banner(gateway, config, io, logger);
  recordForClients(gateway, config, logger);
  const say = bannerWriter(io, logger);
  const children: Array<ReturnType<typeof superviseChild>> = [];
  for (const name of BOT_NAMES) if (!botNames.includes(name)) say(`${name} bot: off (set ${PLATFORMS[name].tokenVar} to turn it on)`);
  const botTokens = await botCredentials(gateway.credentials, botNames);
  // The same CLI entry that runs `start`, started the same way (node flags included), runs the bots, each with a
  // credential that may act only as that bot's surface instead of the admin token: one bot as `bot <name>`; several
  // in one process (`bot <a> <b> …`, each in an error boundary of its own, bot-host.ts), which is lighter than one each.
  for (const name of botNames) say(`${name} bot: starting`);
  const entry = [...process.execArgv, ...(botNames.length > 1 ? BOT_HOST_NODE_FLAGS : []), process.argv[1]!, "bot", ...botNames];
  if (botNames.length === 1) {
    const [name] = botNames;
    children.push(superviseChild(`bot:${name}`, process.execPath, entry, logger.child({ child: `bot:${name}` }), { ...process.env, GATEWAY_TOKEN: botTokens.get(name!)! }));
  } else if (botNames.length > 1) {
    const tokens = JSON.stringify(Object.fromEntries(botTokens));
    children.push(superviseChild("bots", process.execPath, entry, logger.child({ child: "bots" }), { ...process.env, ASK_BOT_GATEWAY_TOKENS: tokens }));
  }
  firstQuestionHint(config, gateway.url, say);
  const signal = await untilSignal();
  exitWithin(0);
  logger.info({ signal }, "shutting down");
  // The bots first (each gets SIGTERM, and SIGKILL if it has not exited in time), so none is left without a gateway.
  const stopped = await stopWithin(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await gateway.close();
  });
  if (stopped === "timed out") logger.warn("a bot or the gateway did not stop in time; exiting anyway");
  return 0;
}
