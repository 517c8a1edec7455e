import type { Logger } from "../../runtime/log.ts";
import type { GatewayEventName } from "../../protocol/index.ts";
import type { QuestionRecord } from "../../record/record.ts";
import { formatTarget, waitsForPerson } from "../../record/targets.ts";

/** At most this many pending questions are tracked (the oldest is dropped; a resolved one is dropped at once). */
const MAX_TRACKED = 10_000;

/**
 * One log line per lifecycle step of a question, from the service's events (issue 19 §1): asked (id, run, targets),
 * delivered (surface, chat, ms since asked), each send failure with the platform's error (a target's retrying or
 * failed state), resolved (status, reason, surface, ms since asked). Question and answer text only at debug.
 * Changes another instance made (`remote`) are that instance's lines; here they are debug.
 */
export function createLifecycleLog(logger: Logger, now: () => number = Date.now) {
  /** Per pending question: the copies and target states already logged. */
  const seen = new Map<string, Set<string>>();

  function seenOf(id: string): Set<string> {
    let set = seen.get(id);
    if (!set) {
      if (seen.size >= MAX_TRACKED) seen.delete(seen.keys().next().value!);
      seen.set(id, (set = new Set()));
    }
    return set;
  }

  return function onEvent(event: GatewayEventName, record: QuestionRecord, remote = false): void {
    const level = remote ? "debug" : "info";
    const id = record.id;
    const sinceAsked = (atMs: number) => Math.max(0, atMs - record.createdAtMs);
    if (event === "question.requested") {
      if (!remote) {
        logger.info({ id, runId: record.runId, sessionKey: record.sessionKey, targets: record.targets.map(formatTarget), questions: record.questions.length, expiresAtMs: record.expiresAtMs }, "asked");
        logger.debug({ id, questions: record.questions.map((q) => ({ id: q.id, question: q.question, options: q.options.map((o) => o.label) })) }, "asked: text");
      }
      return;
    }
    if (event === "question.updated") {
      // After resolution (a late window's end, a late partial reply, a reminder reply reported late): nothing new to log.
      if (record.status !== "pending") return;
      const logged = seenOf(id);
      for (const d of record.deliveries) {
        const key = `d\n${d.surface}\n${d.chat}`;
        if (logged.has(key)) continue;
        logged.add(key);
        logger[level]({ id, surface: d.surface, chat: d.chat, ms: sinceAsked(d.deliveredAtMs) }, "delivered");
      }
      for (const s of record.targetStates ?? []) {
        const key = `s\n${s.surface}\n${s.chat}\n${s.state}\n${s.atMs}`;
        if (logged.has(key)) continue;
        logged.add(key);
        logger[remote ? "debug" : "warn"]({ id, surface: s.surface, chat: s.chat, state: s.state, error: s.reason, ...(s.retryAtMs ? { retryInMs: Math.max(0, s.retryAtMs - now()) } : {}) }, s.state === "failed" ? "send failed" : s.state === "waiting" ? (waitsForPerson(s) ? "waiting for the person" : "no bot connected; waiting for one") : "send failed; retrying");
      }
      return;
    }
    if (event === "question.reminded") {
      const sent = record.remindersSent?.at(-1);
      logger[level]({ id, offsetSeconds: sent?.offsetSeconds, msLeft: Math.max(0, record.expiresAtMs - (sent?.atMs ?? now())) }, "reminded");
      return;
    }
    if (event === "question.escalated") {
      const step = record.escalated?.at(-1);
      logger[level]({ id, step: step?.step, targets: step?.targets.map(formatTarget) }, "escalated");
      return;
    }
    if (event === "question.lateAnswered") {
      const late = record.lateAnswer;
      logger[level]({ id, surface: late?.by.surface, via: late?.by.via, msAfterExpiry: Math.max(0, (late?.atMs ?? now()) - record.expiresAtMs) }, "answered late");
      if (late) logger.debug({ id, answers: late.answers }, "answered late: answers");
      return;
    }
    if (event !== "question.resolved") return;
    seen.delete(id);
    logger[level](
      { id, status: record.status, reason: record.reason, surface: record.by?.surface, via: record.by?.via, ms: sinceAsked(record.resolvedAtMs ?? now()), ...(record.detail ? { detail: record.detail } : {}) },
      "resolved",
    );
    if (record.answers) logger.debug({ id, answers: record.answers }, "resolved: answers");
  };
}
