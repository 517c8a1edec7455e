import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { QuestionRecord } from "../../record/record.ts";
import type { GatewayEventName } from "../../protocol/methods.ts";
import type { QuestionStore } from "../store/kit/types.ts";

/** Every metric's name starts with this. */
export const METRIC_PREFIX = "ask_user_bridge_";

/** One open WebSocket connection as /metrics and /readyz see it. */
export interface ConnectionSnapshot {
  /** admin, agent, bot, web, person, or unauthenticated (no `connect` yet). */
  role: string;
  /**
   * A bot's surface (its credential's, or the one it declared on `connect`, as a bot on the admin token does); `web`
   * for the UI and for people; otherwise the role.
   */
  surface: string;
  /** True for a bot: a bot credential, or a connection that declared its surface on `connect`. */
  bot: boolean;
  connectedAtMs: number;
  /** The last frame or pong received from it. */
  lastSeenMs: number;
  /** A bot's last word on its platform's API (`bot.status`), with since when that has been so. */
  platform?: { reachable: boolean | null; detail?: string; sinceMs: number };
}

const TIME_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];
const DELIVERY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The store methods timed by `timeStore` (what a scrape labels `operation`). */
const TIMED_OPERATIONS = ["create", "get", "list", "countPending", "resolve", "expireDue", "nextExpiryMs", "addDelivery", "mergePartial", "pendingAwaitingDelivery", "claimDelivery", "liveClaims", "setTargetState", "setRendered", "markReplySeen", "unmarkReplySeen", "pruneRepliesSeen", "followUpsDue", "nextFollowUpMs", "lateWindowsEnded", "markReminder", "markEscalated", "addReminderCopy", "setLateAnswer", "clearWaiting"] as const;

/** The webhook outbox's store calls, timed like the others. */
const WEBHOOK_OPERATIONS = ["claimWebhooks", "settleWebhook", "nextWebhookMs", "countWebhooks", "pruneWebhooks"] as const;

/**
 * A gateway's Prometheus metrics, in a registry of its own (several gateways may run in one process). Counters move
 * with the events this instance emits for its own work (`remote` events, committed by other instances on a shared
 * PostgreSQL store, are left to those instances); the pending gauge and the connections are read at scrape time.
 */
export function createGatewayMetrics(options: { store: QuestionStore; connections: () => ConnectionSnapshot[]; now?: () => number }) {
  const now = options.now ?? Date.now;
  const register = new Registry();
  // The event-loop delay histogram samples every 100 ms, not prom-client's default 10 ms: a 10 ms timer wakes an idle
  // gateway 100 times a second (about 1 % of a core, on every instance); the percentiles come from fewer samples.
  collectDefaultMetrics({ register, eventLoopMonitoringPrecision: 100 });
  const name = (suffix: string) => `${METRIC_PREFIX}${suffix}`;

  const asked = new Counter({ name: name("questions_asked_total"), help: "Questions asked, by target surface (one per surface a question targets).", labelNames: ["surface"], registers: [register] });
  const resolved = new Counter({ name: name("questions_resolved_total"), help: "Questions resolved, by status and reason.", labelNames: ["status", "reason"], registers: [register] });
  const timeToAnswer = new Histogram({ name: name("time_to_answer_seconds"), help: "From asked to answered, for answered questions.", buckets: TIME_BUCKETS, registers: [register] });
  const deliveryLatency = new Histogram({ name: name("delivery_latency_seconds"), help: "From asked to a copy's reported delivery, by surface.", labelNames: ["surface"], buckets: DELIVERY_BUCKETS, registers: [register] });
  const deliveryFailures = new Counter({ name: name("delivery_failures_total"), help: "Questions cancelled as delivery_failed, by chat target surface.", labelNames: ["surface"], registers: [register] });
  const followUps = new Counter({ name: name("follow_ups_total"), help: "When nobody answers: reminders fired, escalation steps taken and late answers taken, by kind.", labelNames: ["kind"], registers: [register] });
  const storeSeconds = new Histogram({ name: name("store_operation_seconds"), help: "Time of each store call until it settled (a write: committed), by operation.", labelNames: ["operation", "outcome"], buckets: STORE_BUCKETS, registers: [register] });

  // Webhooks (issue 29 §4): each try's outcome as this instance saw it, and the outbox's open messages.
  const webhookDeliveries = new Counter({
    name: name("webhook_deliveries_total"),
    help: "Webhook tries by outcome: sent (2xx), retried (failed, tried again later), given_up (failed past the 24 h window).",
    labelNames: ["outcome"],
    registers: [register],
  });
  for (const outcome of ["sent", "retried", "given_up"]) webhookDeliveries.inc({ outcome }, 0);

  const { store, connections } = options;
  new Gauge({
    name: name("webhooks_pending"),
    help: "Webhook messages neither sent nor given up (every instance's), counted at scrape time.",
    registers: [register],
    async collect() {
      this.set(await store.countWebhooks());
    },
  });
  new Gauge({
    name: name("questions_pending"),
    help: "Pending questions in the store (every instance's), counted at scrape time.",
    registers: [register],
    async collect() {
      this.set(await store.countPending());
    },
  });
  new Gauge({
    name: name("connections"),
    help: "Open WebSocket connections of this instance, by role and surface.",
    labelNames: ["role", "surface"],
    registers: [register],
    collect() {
      this.reset();
      for (const connection of connections()) this.inc({ role: connection.role, surface: connection.surface });
    },
  });

  /** Per pending question, the copies already seen (surface + chat), so a repeated report is not timed again. */
  const seenDeliveries = new Map<string, Set<string>>();

  function onEvent(event: GatewayEventName, record: QuestionRecord, remote = false): void {
    if (event === "question.resolved") seenDeliveries.delete(record.id);
    else if (event === "question.updated" && record.status === "pending") {
      const seen = seenDeliveries.get(record.id) ?? new Set<string>();
      seenDeliveries.set(record.id, seen);
      for (const delivery of record.deliveries) {
        const key = `${delivery.surface}\n${delivery.chat}`;
        if (seen.has(key)) continue;
        seen.add(key);
        // A copy another instance recorded is timed there.
        if (!remote) deliveryLatency.observe({ surface: delivery.surface }, Math.max(0, delivery.deliveredAtMs - record.createdAtMs) / 1000);
      }
    }
    if (remote) return;
    if (event === "question.reminded") followUps.inc({ kind: "reminder" });
    else if (event === "question.escalated") followUps.inc({ kind: "escalation" });
    else if (event === "question.lateAnswered") followUps.inc({ kind: "late_answer" });
    if (event === "question.requested") {
      for (const surface of new Set(record.targets.map((t) => t.surface))) asked.inc({ surface });
    } else if (event === "question.resolved") {
      resolved.inc({ status: record.status, reason: record.reason ?? (record.status === "answered" ? "answered" : "none") });
      if (record.status === "answered") timeToAnswer.observe(Math.max(0, (record.resolvedAtMs ?? now()) - record.createdAtMs) / 1000);
      if (record.reason === "delivery_failed") {
        for (const surface of new Set(record.targets.filter((t) => t.surface !== "web").map((t) => t.surface))) deliveryFailures.inc({ surface });
      }
    }
  }

  /** The same store, with each call's time observed (by operation, and whether it failed). */
  function timeStore(inner: QuestionStore): QuestionStore {
    const timed: QuestionStore = { ...inner };
    for (const operation of [...TIMED_OPERATIONS, ...WEBHOOK_OPERATIONS]) {
      const call = inner[operation] as (...args: unknown[]) => Promise<unknown>;
      (timed as unknown as Record<string, unknown>)[operation] = async (...args: unknown[]) => {
        const end = storeSeconds.startTimer({ operation });
        try {
          const result = await call.apply(inner, args);
          end({ outcome: "ok" });
          return result;
        } catch (error) {
          end({ outcome: "error" });
          throw error;
        }
      };
    }
    return timed;
  }

  return {
    register,
    onEvent,
    timeStore,
    /** One webhook try's outcome. */
    onWebhookOutcome: (outcome: "sent" | "retried" | "given_up") => webhookDeliveries.inc({ outcome }),
    async render(): Promise<{ contentType: string; body: string }> {
      return { contentType: register.contentType, body: await register.metrics() };
    },
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
