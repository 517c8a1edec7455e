import { realClock, type Clock } from "../kernel/clock.ts";
import { deploymentSecrets, type BOT_SECRETS, type Config } from "../runtime/config.ts";
import { isWildcardHost, localGatewayUrl } from "../runtime/local-url.ts";
import { describeModeChanges, tightenPrivateDir } from "../runtime/data-dir.ts";
import { createAuthBackoff } from "./auth/auth-backoff.ts";
import { createCredentialCheck, type AuthVerdict } from "./auth/check.ts";
import type { CredentialStore, StoredSessions } from "./auth/store.ts";
import { createClientAddress, type ClientAddress } from "./server/client-address.ts";
import { createGatewayMetrics, type ConnectionSnapshot } from "./server/metrics.ts";
import { createGatewayServer, type HttpRoute, type RequestAuthenticator } from "./server/server.ts";
import { createEventHub } from "./service/events.ts";
import { createQuestionService, type QuestionService } from "./service/service.ts";
import { openStores } from "./store/open-stores.ts";
import { SQLITE_FILES } from "./store/sqlite/sqlite-file.ts";
import type { QuestionStore } from "./store/kit/types.ts";
import { ensureGatewayToken, TOKEN_FILE_NAME } from "../runtime/token-file.ts";
import { logCallback, redactAlso, type Logger } from "../runtime/log.ts";
import { createLifecycleLog } from "./service/lifecycle-log.ts";
import { createAnswerLinks, loadLinkKey, type AnswerLinks } from "./links/answer-links.ts";
import { withAnswerLinks } from "./links/store-links.ts";
import { createWebhookSender, type WebhookSenderOptions } from "./webhooks/sender.ts";

export interface RunningGateway {
  url: string;
  token: string;
  tokenGenerated: boolean;
  store: QuestionStore;
  /** The scoped credentials this gateway accepts (`start` adds its bots' here). */
  credentials: CredentialStore;
  close(): Promise<void>;
}

type GatewayConfig = Pick<
  Config,
  "GATEWAY_HOST" | "GATEWAY_PORT" | "GATEWAY_TOKEN" | "DATA_DIR" | "STORE" | "DATABASE_URL" | "DELIVERY_TIMEOUT_SECONDS" | "ASK_DEFAULT_TARGETS" | "ASK_TEST_MIN_TIMEOUT_SECONDS"
> &
  Partial<Pick<Config, "ASK_ALLOWED_TARGETS" | "ASK_MAX_PENDING_PER_RUN" | "ASK_MAX_PENDING_PER_CREDENTIAL" | "GATEWAY_MAX_CONNECTIONS" | "GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL">> &
  Partial<Pick<Config, "METRICS_TOKEN" | "METRICS_PUBLIC">> &
  Partial<Pick<Config, "REMIND_BEFORE_SECONDS" | "LATE_ANSWER_SECONDS">> &
  Partial<Pick<Config, "WEBHOOK_URLS" | "WEBHOOK_SECRET" | "WEBHOOK_TIMEOUT_SECONDS">> &
  Partial<Pick<Config, (typeof BOT_SECRETS)[number]>> &
  Partial<Pick<Config, "GATEWAY_PUBLIC_URL">> &
  Partial<Pick<Config, "GATEWAY_TRUSTED_PROXIES">>;

/** What an answer page (handed in like the web app) needs: the links, and the questions to read and answer. */
export interface AnswerPageContext {
  links: AnswerLinks;
  questions: Pick<QuestionService, "get" | "resolve">;
}

/**
 * A web app the gateway serves beside the protocol (the Control UI is one): its routes, and how its own sessions
 * authenticate on `/ws` and `/rpc` besides the token. Handed in by the caller, so the gateway never imports one.
 */
export interface GatewayWebApp {
  routes: HttpRoute[];
  authenticate?: RequestAuthenticator;
}

/** What a web app is made with. */
export interface WebAppContext {
  token: string;
  checkToken: (address: string | undefined, presented: unknown) => AuthVerdict | Promise<AuthVerdict>;
  /** The address to hand `checkToken` for a request (GATEWAY_TRUSTED_PROXIES: the client's, behind a trusted proxy). */
  clientAddress: ClientAddress;
  /** The store's Control UI sessions: on PostgreSQL every instance shares them; on SQLite they outlive a restart. */
  sessions: StoredSessions;
  log?: (message: string, error?: unknown) => void;
}

/** Every file the gateway keeps in DATA_DIR: the SQLite database, the files SQLite puts beside it, the generated token. */
const DATA_DIR_FILES = [...SQLITE_FILES, TOKEN_FILE_NAME];

/** Opens the store, expires what passed while down, and serves the protocol. */
export async function startGateway(
  config: GatewayConfig,
  extras: {
    routes?: (ctx: { token: string }) => HttpRoute[];
    log?: (message: string, error?: unknown) => void;
    /** The process's logger: problems go to it (unless `log` is given), and a line per question lifecycle step. */
    logger?: Logger;
    /**
     * A web app to serve, made once the token is known (`start` and `gateway` hand in the Control UI): with the
     * guarded token check (the admin token and scoped credentials, a person's among them) and the store's sessions.
     */
    webApp?: (ctx: WebAppContext) => GatewayWebApp;
    /** The answer links' page (`/a/<token>`), made once the links are (`start` and `gateway` hand in src/web/answer-page.ts). */
    answerPage?: (ctx: AnswerPageContext) => HttpRoute[];
    /** The surfaces whose bots this deployment runs (`start`): /readyz waits for each to connect. */
    expectedBots?: readonly string[];
    /** Tests: the webhook sender's clock, retry window, first retry wait and lease. */
    webhooks?: Pick<WebhookSenderOptions, "now" | "retryWindowMs" | "retryBaseMs" | "leaseMs">;
    /** The questions' time and timers (expiry, reminders, escalation, late windows, long-polls); default the real clock. */
    clock?: Clock;
  } = {},
): Promise<RunningGateway> {
  if (extras.logger && !extras.log) extras = { ...extras, log: logCallback(extras.logger) };
  const warn = (message: string) =>
    extras.logger ? extras.logger.warn(message) : (extras.log ?? ((line: string) => console.warn(`[gateway] ${line}`)))(message);
  // Before anything opens them: a database, WAL or token file an earlier release left 0644 is made 0600.
  const tightened = tightenPrivateDir(config.DATA_DIR, DATA_DIR_FILES);
  if (tightened.length > 0) warn(describeModeChanges(tightened));
  const { token, generated } = ensureGatewayToken(config.GATEWAY_TOKEN, config.DATA_DIR);
  // A token from DATA_DIR (generated now or by an earlier start) is as secret as a configured one.
  if (extras.logger) redactAlso(extras.logger, [token]);
  // The backend's driver loads only here: PostgreSQL (DATABASE_URL), SQLite under DATA_DIR, or memory.
  // Webhooks need both halves (loadConfig refuses one alone): only then does the store write an outbox.
  const webhookUrls = config.WEBHOOK_SECRET ? (config.WEBHOOK_URLS ?? []) : [];
  const { store, credentials, close: closeStores } = await openStores({ ...config, WEBHOOK_URLS: webhookUrls }, extras.log);
  const events = createEventHub();
  // /metrics: the store's calls timed, the service's events counted, the server's connections read at scrape time.
  let connectionSnapshots: () => ConnectionSnapshot[] = () => [];
  const metrics = createGatewayMetrics({ store, connections: () => connectionSnapshots() });
  events.subscribe(metrics.onEvent);
  const clock = extras.clock ?? realClock;
  if (extras.logger) events.subscribe(createLifecycleLog(extras.logger, () => clock.now()));
  // Answer links: signed with one key kept in the store (every instance on a database shares it), made on every read
  // at GATEWAY_PUBLIC_URL, else at this gateway's own URL (the configured one until it listens).
  let ownUrl = localGatewayUrl(config.GATEWAY_HOST, config.GATEWAY_PORT);
  let links: AnswerLinks;
  try {
    links = createAnswerLinks({ key: await loadLinkKey(store), baseUrl: () => config.GATEWAY_PUBLIC_URL ?? ownUrl, reachable: () => config.GATEWAY_PUBLIC_URL !== undefined });
  } catch (error) {
    await closeStores();
    throw error;
  }
  // Webhooks: the store writes the outbox in each event's commit; the sender posts it, woken by the event.
  const webhooks =
    webhookUrls.length > 0 && config.WEBHOOK_SECRET
      ? createWebhookSender({
          store: metrics.timeStore(store),
          urls: webhookUrls,
          secret: config.WEBHOOK_SECRET,
          timeoutMs: (config.WEBHOOK_TIMEOUT_SECONDS ?? 10) * 1000,
          onOutcome: metrics.onWebhookOutcome,
          log: { info: (message) => extras.logger?.info(message), warn },
          ...extras.webhooks,
        })
      : undefined;
  if (webhooks) events.subscribe((event) => (event === "question.resolved" || event === "question.lateAnswered") && webhooks.wake());
  const service = createQuestionService({
    store: withAnswerLinks(metrics.timeStore(store), links.linksFor),
    events,
    clock,
    ...(extras.log ? { log: extras.log } : {}),
    deliveryTimeoutMs: config.DELIVERY_TIMEOUT_SECONDS * 1000,
    defaultTargets: config.ASK_DEFAULT_TARGETS,
    // The one list of this deployment's secrets (the metrics token too), with the token in use, generated or not.
    knownSecrets: deploymentSecrets({ ...config, GATEWAY_TOKEN: token }),
    ...(config.ASK_ALLOWED_TARGETS?.length ? { allowedTargets: config.ASK_ALLOWED_TARGETS } : {}),
    ...(config.ASK_MAX_PENDING_PER_RUN ? { maxPendingPerRun: config.ASK_MAX_PENDING_PER_RUN } : {}),
    ...(config.ASK_MAX_PENDING_PER_CREDENTIAL ? { maxPendingPerCredential: config.ASK_MAX_PENDING_PER_CREDENTIAL } : {}),
    ...(config.ASK_TEST_MIN_TIMEOUT_SECONDS === undefined ? {} : { minTimeoutSeconds: config.ASK_TEST_MIN_TIMEOUT_SECONDS }),
    followUpDefaults: {
      ...(config.REMIND_BEFORE_SECONDS ? { reminders: config.REMIND_BEFORE_SECONDS } : {}),
      ...(config.LATE_ANSWER_SECONDS !== undefined ? { lateAnswerSeconds: config.LATE_ANSWER_SECONDS } : {}),
    },
  });
  try {
    await service.start();
  } catch (error) {
    service.stop();
    await closeStores();
    throw error;
  }
  webhooks?.start();
  // One backoff for every token check, the web app's sign-in included, each counted under the client's address.
  const backoff = createAuthBackoff();
  const clientAddress = createClientAddress(config.GATEWAY_TRUSTED_PROXIES ?? []);
  const ui = extras.webApp?.({
    token,
    clientAddress,
    checkToken: createCredentialCheck({ adminToken: token, backoff, credentials, ...(extras.log ? { log: extras.log } : {}) }).check,
    sessions: credentials.sessions,
    ...(extras.log ? { log: extras.log } : {}),
  });
  const routes = [...(extras.routes?.({ token }) ?? []), ...(ui?.routes ?? []), ...(extras.answerPage?.({ links, questions: service }) ?? [])];
  const server = createGatewayServer({
    service,
    token,
    credentials,
    backoff,
    clientAddress,
    host: config.GATEWAY_HOST,
    port: config.GATEWAY_PORT,
    ...(config.GATEWAY_MAX_CONNECTIONS ? { maxConnections: config.GATEWAY_MAX_CONNECTIONS } : {}),
    ...(config.GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL ? { maxConnectionsPerCredential: config.GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL } : {}),
    ...(routes.length > 0 ? { routes } : {}),
    ...(ui ? { authenticate: ui.authenticate } : {}),
    ...(extras.log ? { log: extras.log } : {}),
    health: {
      metrics: metrics.render,
      metricsTokens: [token, ...(config.METRICS_TOKEN ? [config.METRICS_TOKEN] : [])],
      metricsPublic: config.METRICS_PUBLIC === true,
      checkStore: () => store.list({ limit: 1 }),
      ...(extras.expectedBots ? { expectedBots: extras.expectedBots } : {}),
    },
  });
  connectionSnapshots = server.connections;
  let address;
  try {
    address = await server.listen();
  } catch (error) {
    service.stop();
    webhooks?.stop();
    await closeStores();
    throw error;
  }
  ownUrl = localGatewayUrl(address.host, address.port);
  // Bound to every interface with no public address: the links' host is this machine's loopback, which only a
  // browser on this machine opens (a link at 0.0.0.0 no browser opens at all), and the Control UI answers only to
  // the loopback names (host-check.ts). Both need the address people use.
  if (!config.GATEWAY_PUBLIC_URL && isWildcardHost(address.host)) {
    warn(
      `listening on every interface (GATEWAY_HOST=${config.GATEWAY_HOST}) without GATEWAY_PUBLIC_URL: answer links point at ${ownUrl} ` +
        `and the Control UI answers only to localhost, so both work only on this machine; set GATEWAY_PUBLIC_URL to the address people reach the gateway at`,
    );
  }
  return {
    url: address.url,
    token,
    tokenGenerated: generated,
    store,
    credentials,
    async close() {
      service.stop();
      webhooks?.stop();
      await server.close();
      await closeStores();
    },
  };
}
