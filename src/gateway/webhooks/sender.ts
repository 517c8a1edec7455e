import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { backoffDelay } from "../../kernel/backoff.ts";
import type { QuestionStore, WebhookMessage } from "../store/kit/types.ts";
import { webhookBody } from "./envelope.ts";

/** How long after its event a message is still retried: 24 h (issue 29 §4). */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** POSTs in flight at once, and to one URL: a receiver that hangs holds a few places, never all of them. */
const CONCURRENCY = 16;
const PER_URL = 4;
/** With nothing due, the outbox is looked at this often anyway (a shared store's rows another instance left). */
const IDLE_SWEEP_MS = 30_000;
/** Messages sent or given up are kept this long (for ops to look at), and pruned about once an hour. */
const KEEP_DONE_MS = 7 * 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export type WebhookOutcome = "sent" | "retried" | "given_up";

export interface WebhookSenderOptions {
  store: QuestionStore;
  /** WEBHOOK_URLS: a message left in the outbox for a URL no longer among them is given up, not sent. */
  urls: readonly string[];
  /** `whsec_<base64>` or the base64 alone. */
  secret: string;
  /** One POST's limit (default 10 s): no answer by then is a failed try. */
  timeoutMs?: number;
  /** How long a claim holds a message (default: twice the timeout and 5 s): a sender that died lets go after it. */
  leaseMs?: number;
  /** How long after its event a message is retried (default 24 h); past it, a failure gives it up. */
  retryWindowMs?: number;
  /** The first retry's wait, doubling per try up to an hour, jittered (default 5 s). */
  retryBaseMs?: number;
  now?: () => number;
  /** Each try's outcome, for /metrics. */
  onOutcome?: (outcome: WebhookOutcome) => void;
  /** Retries (info) and give-ups (warn); never the secret or the body. */
  log?: { info(message: string): void; warn(message: string): void };
}

/**
 * Sends the outbox: claims due messages with a lease (on PostgreSQL each goes to one instance), POSTs each signed
 * with the `standardwebhooks` package (the same webhook-id and body on every try; the timestamp is the try's), and
 * settles it: 2xx is sent; any other status, a redirect (never followed), a timeout or a connection error is retried
 * with backoff until the window after the event closes, then given up. `wake` runs a pass at once (after a commit);
 * a timer runs one when the next retry is due. `stop` aborts what is in flight and leaves it to its lease.
 */
export function createWebhookSender(options: WebhookSenderOptions) {
  const { store, now = Date.now, onOutcome = () => undefined } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = options.leaseMs ?? timeoutMs * 2 + 5_000;
  const retryWindowMs = options.retryWindowMs ?? WEBHOOK_RETRY_WINDOW_MS;
  const retryBaseMs = options.retryBaseMs ?? 5_000;
  const log = options.log ?? { info: () => undefined, warn: (message: string) => console.warn(`[webhooks] ${message}`) };
  const signer = new Webhook(options.secret);
  const claimant = `aub-webhooks-${randomBytes(6).toString("hex")}`;
  const configured = new Set(options.urls);

  const inFlight = new Map<string, AbortController>();
  const perUrl = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let passing = false;
  let again = false;
  let stopped = true;
  let prunedAtMs = Number.NEGATIVE_INFINITY;

  async function pass(): Promise<void> {
    if (stopped) return;
    if (passing) {
      again = true;
      return;
    }
    passing = true;
    try {
      if (now() - prunedAtMs >= PRUNE_EVERY_MS) {
        prunedAtMs = now();
        await store.pruneWebhooks(prunedAtMs - KEEP_DONE_MS).catch((error: Error) => log.warn(`old webhook messages could not be pruned: ${error.message}`));
      }
      // A wake while this pass runs (its schedule included) makes it claim once more.
      do {
        again = false;
        for (;;) {
          const free = CONCURRENCY - inFlight.size;
          if (free <= 0) break;
          const exceptUrls = [...perUrl].filter(([, n]) => n >= PER_URL).map(([url]) => url);
          const claimed = await store.claimWebhooks({ claimant, nowMs: now(), leaseMs, limit: free, exceptUrls });
          for (const message of claimed) void send(message);
          if (claimed.length < free || stopped) break;
        }
        await schedule();
      } while (again && !stopped);
    } catch (error) {
      log.warn(`the webhook outbox could not be read: ${(error as Error).message}`);
      arm(1_000);
    } finally {
      passing = false;
    }
  }

  /** The next pass: when the next message is due (or, with none, after the idle sweep). */
  async function schedule(): Promise<void> {
    const next = await store.nextWebhookMs();
    if (next === undefined) return arm(IDLE_SWEEP_MS);
    const wait = next - now();
    // Due now but not claimed: held back for a busy URL, which a settling send wakes us for.
    if (wait <= 0) return inFlight.size > 0 ? undefined : arm(250);
    arm(Math.min(wait, IDLE_SWEEP_MS));
  }

  function arm(ms: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void pass(), ms);
    timer.unref();
  }

  async function send(message: WebhookMessage): Promise<void> {
    const controller = new AbortController();
    inFlight.set(message.id, controller);
    perUrl.set(message.url, (perUrl.get(message.url) ?? 0) + 1);
    const failure = configured.has(message.url) ? await post(message, controller.signal) : "its URL is no longer in WEBHOOK_URLS";
    inFlight.delete(message.id);
    const left = (perUrl.get(message.url) ?? 1) - 1;
    if (left > 0) perUrl.set(message.url, left);
    else perUrl.delete(message.url);
    if (stopped) return; // left to the lease: the next sender tries again, with the same webhook-id
    try {
      await settle(message, failure);
    } catch (error) {
      log.warn(`webhook ${message.id}: its outcome could not be stored (${(error as Error).message}); it is tried again after its lease`);
    }
    void pass();
  }

  /** One try: undefined when the receiver took it (2xx), else why not. */
  async function post(message: WebhookMessage, signal: AbortSignal): Promise<string | undefined> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const body = webhookBody(message);
      const at = new Date(now());
      const response = await fetch(message.url, {
        method: "POST",
        redirect: "manual",
        signal: AbortSignal.any([signal, timeout]),
        headers: {
          "content-type": "application/json",
          "user-agent": "ask-user-bridge-webhooks",
          "webhook-id": message.id,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": signer.sign(message.id, at, body),
        },
        body,
      });
      await response.body?.cancel().catch(() => undefined);
      return response.status >= 200 && response.status < 300 ? undefined : `HTTP ${response.status}`;
    } catch (error) {
      if (timeout.aborted) return `no answer within ${timeoutMs / 1000} s`;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return cause?.code ?? cause?.message ?? (error as Error).message;
    }
  }

  async function settle(message: WebhookMessage, failure: string | undefined): Promise<void> {
    const atMs = now();
    const where = `webhook ${message.id} (${message.event} of question ${message.questionId}) to ${new URL(message.url).origin}`;
    if (failure === undefined) {
      if (await store.settleWebhook(message.id, claimant, { outcome: "sent", atMs })) onOutcome("sent");
      return;
    }
    const deadline = message.eventAtMs + retryWindowMs;
    if (atMs >= deadline || !configured.has(message.url)) {
      if (await store.settleWebhook(message.id, claimant, { outcome: "given_up", atMs, error: failure })) {
        onOutcome("given_up");
        log.warn(`${where}: given up after ${message.attempts} tries over ${Math.round((atMs - message.eventAtMs) / 1000)} s (last: ${failure})`);
      }
      return;
    }
    const retryAtMs = Math.min(deadline, atMs + backoffDelay(message.attempts - 1, retryBaseMs, 3_600_000));
    if (await store.settleWebhook(message.id, claimant, { outcome: "retry", atMs, retryAtMs, error: failure })) {
      onOutcome("retried");
      log.info(`${where}: try ${message.attempts} failed (${failure}); next in ${Math.round((retryAtMs - atMs) / 1000)} s`);
    }
  }

  return {
    claimant,
    /** Sends what is due now, then keeps the schedule. */
    start(): void {
      stopped = false;
      void pass();
    },
    /** A commit wrote messages: send them now. */
    wake(): void {
      void pass();
    },
    /** Stops claiming; what is in flight is aborted and left to its lease. */
    stop(): void {
      stopped = true;
      clearTimeout(timer);
      for (const controller of inFlight.values()) controller.abort();
    },
  };
}

export type WebhookSender = ReturnType<typeof createWebhookSender>;
