import type { GatewayClient } from "../client/index.ts";
import type { QuestionRecord } from "../record/record.ts";
import { formatTarget, waitsForPerson } from "../record/targets.ts";

/** How often, at most, `ask` on a terminal prints how long is left. */
export const ASK_COUNTDOWN_INTERVAL_MS = 10_000;

export interface AskProgressOptions {
  client: Pick<GatewayClient, "on" | "get">;
  /** The gateway's address, for the Control UI link (never with the token in it). */
  gatewayUrl: string;
  err: (line: string) => void;
  intervalMs?: number;
  now?: () => number;
}

/** The Control UI's address for a gateway URL (ws:// or http://, /ws or not): the page at `/`, with no token in it. */
export function controlUiUrl(url: string): string {
  const u = new URL(url);
  const protocol = u.protocol === "wss:" ? "https:" : u.protocol === "ws:" ? "http:" : u.protocol;
  return `${protocol}//${u.host}/`;
}

/** "4m 30s", "45s", "1h 2m". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h) return `${h}h ${m}m`;
  return m ? `${m}m ${s}s` : `${s}s`;
}

/** A target's delivery trouble as `ask` shows it: "retrying: 502 Bad Gateway", "failed: chat not found". */
function stateText(record: QuestionRecord, surface: string, chat: string | undefined): string | undefined {
  const state = record.targetStates?.find((s) => s.surface === surface && s.chat === chat);
  return state && `${state.state}: ${state.reason}`;
}

/** Chat targets with no delivered copy yet (the web target has no copies to deliver), with any state and reason. */
function undelivered(record: QuestionRecord): string[] {
  return record.targets
    .filter((t) => t.surface !== "web" && !record.deliveries.some((d) => d.surface === t.surface && d.chat === t.chat))
    .map((t) => {
      const state = stateText(record, t.surface, t.chat);
      return state ? `${formatTarget(t)} (${state})` : formatTarget(t);
    });
}

/**
 * What `ask` shows on a terminal while it waits: where the question went, targets still retrying or failed (with
 * the reason their bot gave) or with no bot connected, time left,
 * reconnections, and the Control UI link for a `web` target. Lines go to stderr; stdout keeps only the result.
 */
export function createAskProgress({ client, gatewayUrl, err, intervalMs = ASK_COUNTDOWN_INTERVAL_MS, now = Date.now }: AskProgressOptions) {
  let id: string | undefined;
  let expiresAtMs = 0;
  let record: QuestionRecord | undefined;
  const delivered = new Set<string>();
  /** The last state shown per target, so each change is printed once. */
  const shownStates = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;

  const see = (next: QuestionRecord) => {
    if (next.id !== id) return;
    if (!record) {
      const link = next.targets.some((t) => t.surface === "web") ? ` Answer it in the Control UI at ${controlUiUrl(gatewayUrl)}` : "";
      err(`Sent to ${next.targets.map(formatTarget).join(", ") || "the default targets"}.${link}`);
    }
    record = next;
    for (const d of next.deliveries) {
      const key = `${d.surface}:${d.chat}`;
      if (!delivered.has(key)) {
        delivered.add(key);
        err(`delivered to ${key}`);
      }
    }
    for (const state of next.targetStates ?? []) {
      const key = `${state.surface}:${state.chat}`;
      const text = `${state.state}: ${state.reason}`;
      // A state of a chat with a copy is never shown (reads leave it out); a copy withdrawn since shows its failure.
      if (next.deliveries.some((d) => `${d.surface}:${d.chat}` === key) || shownStates.get(key) === text) continue;
      shownStates.set(key, text);
      if (waitsForPerson(state)) err(`${key} is waiting for the person: ${state.reason}`);
      else if (state.state === "waiting") err(`${key}: ${state.reason}; waiting for one to start`);
      else err(`${key} ${state.state === "failed" ? "cannot receive it" : "is retrying"}: ${state.reason}`);
    }
  };

  const offs = [
    client.on("question.updated", see),
    client.on("question.reminded", (next) => {
      if (next.id !== id) return;
      const sent = next.remindersSent?.at(-1);
      if (sent) err(`reminder sent, ${formatDuration(next.expiresAtMs - sent.atMs)} left`);
      see(next);
    }),
    client.on("question.escalated", (next) => {
      if (next.id !== id) return;
      const step = next.escalated?.at(-1);
      if (step) err(`no answer after ${formatDuration(step.afterSeconds * 1000)}: also sent to ${step.targets.map(formatTarget).join(", ")}`);
      see(next);
    }),
    client.on("disconnected", () => err("reconnecting… (the link to the gateway dropped)")),
    client.on("connected", () => err("reconnected")),
  ];

  const countdown = () => {
    const waiting = record ? undelivered(record) : [];
    err(`waiting, ${formatDuration(expiresAtMs - now())} left${waiting.length ? ` (still trying ${waiting.join(", ")})` : ""}`);
  };

  return {
    onRequested(question: { id: string; expiresAtMs: number }): void {
      id = question.id;
      expiresAtMs = question.expiresAtMs;
      client.get(question.id).then(see, () => {});
      timer = setInterval(countdown, intervalMs);
      timer.unref();
    },
    stop(): void {
      clearInterval(timer);
      for (const off of offs) off();
    },
  };
}
