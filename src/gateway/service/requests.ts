import { randomBytes } from "node:crypto";
import { normalizeAskUserInput } from "../../contract/normalize.ts";
import { GatewayError } from "../../kernel/errors.ts";
import { formatIssues } from "../../kernel/issues.ts";
import type { MethodParams } from "../../protocol/index.ts";
import type { ApprovalSubject, QuestionRecord, Target } from "../../record/record.ts";
import { APPROVAL_LABEL_MAX_GRAPHEMES } from "../../protocol/methods.ts";
import { approvalQuestionIssues } from "./approvals.ts";
import { formatTarget } from "../../record/targets.ts";
import { ADMIN, type Principal } from "../auth/principal.ts";
import { nextFollowUpMs } from "../../record/follow-ups.ts";
import type { ServiceContext } from "./context.ts";
import { followUpPolicy } from "./follow-ups.ts";
import { stored } from "./stored.ts";

/** Question ids: 80 random bits as hex. The random bytes are drawn 256 ids at a time (one syscall, not one per id). */
const ID_BYTES = 10;
let idPool = Buffer.alloc(0);
let idOffset = 0;
function newQuestionId(): string {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 256);
    idOffset = 0;
  }
  const id = `q${idPool.toString("hex", idOffset, idOffset + ID_BYTES)}`;
  idOffset += ID_BYTES;
  return id;
}

/**
 * An allowed `web:NAME` (people named) admits web targets for those people only: `web` (anyone) is admitted by `web`
 * alone. Chat targets keep their rule: an allowed chat admits any users within it.
 */
function allowsPeople(allowed: Target, target: Target): boolean {
  if (allowed.surface !== "web" || !allowed.users?.length) return true;
  return !!target.users?.length && target.users.every((user) => allowed.users!.includes(user));
}

/** Asking: a new question (checked, stored, scheduled, announced), and cancelling a run's questions. */
export function createRequests({ options, store, now, deadlines, events, finished, known, noBot }: ServiceContext) {
  const defaultTargets = options.defaultTargets?.length ? options.defaultTargets : [{ surface: "web" as const }];

  /** With ASK_ALLOWED_TARGETS, the targets (at `path`) that are not listed there. */
  function allowedTargetIssues(targets: readonly Target[], path: string): Array<{ path: string; message: string }> {
    const allowed = options.allowedTargets;
    if (!allowed?.length) return [];
    return targets.flatMap((target, index) =>
      allowed.some((a) => a.surface === target.surface && (a.chat === undefined || a.chat === target.chat) && allowsPeople(a, target))
        ? []
        : [{ path: `${path}.${index}`, message: `${formatTarget(target)} is not in ASK_ALLOWED_TARGETS` }],
    );
  }

  /** With ASK_ALLOWED_TARGETS, a request may only reach the chats listed there (any users within them). */
  function checkAllowedTargets(targets: readonly Target[]): void {
    const issues = allowedTargetIssues(targets, "targets");
    if (issues.length > 0) throw new GatewayError("INVALID_PARAMS", formatIssues(issues, "; "), { issues });
  }

  /** A scoped agent's pending quotas (its records carry `askedBy`; the admin's have none and are not limited). */
  const pendingLimits = {
    ...(options.maxPendingPerRun !== undefined ? { perRun: options.maxPendingPerRun } : {}),
    ...(options.maxPendingPerCredential !== undefined ? { perCredential: options.maxPendingPerCredential } : {}),
  };

  return {
    async request(params: MethodParams<"question.request">, asker: Principal = ADMIN): Promise<{ id: string; expiresAtMs: number; record: QuestionRecord }> {
      const { runId, sessionKey, targets, waitMs: _waitMs, reminders: _reminders, escalate: _escalate, lateAnswerSeconds: _late, links, approval, ...input } = params;
      const normalized = normalizeAskUserInput(input, {
        ...(options.minTimeoutSeconds === undefined ? {} : { minTimeoutSeconds: options.minTimeoutSeconds }),
        // A grant's label names its rule and the file it is saved in ("Always allow `Bash(git push *)` here (…)").
        ...(approval ? { labelMaxGraphemes: APPROVAL_LABEL_MAX_GRAPHEMES } : {}),
      });
      if (!normalized.ok) {
        const lines = formatIssues(normalized.issues, "; ");
        throw new GatewayError("INVALID_PARAMS", `invalid ask_user input: ${lines}`, { issues: normalized.issues });
      }
      const approvalIssues = approval ? approvalQuestionIssues(normalized.value.questions, approval) : [];
      if (approvalIssues.length > 0) throw new GatewayError("INVALID_PARAMS", `invalid approval: ${formatIssues(approvalIssues, "; ")}`, { issues: approvalIssues });
      const chosenTargets = targets ?? defaultTargets;
      checkAllowedTargets(chosenTargets);
      const policy = followUpPolicy(params, normalized.value.timeoutSeconds, options.followUpDefaults ?? {}, allowedTargetIssues);
      const askedBy = asker.kind === "agent" ? asker.credentialId : undefined;
      const createdAtMs = now();
      const record: QuestionRecord = {
        id: newQuestionId(),
        questions: normalized.value.questions,
        timeoutSeconds: normalized.value.timeoutSeconds,
        status: "pending",
        createdAtMs,
        expiresAtMs: createdAtMs + normalized.value.timeoutSeconds * 1000,
        targets: chosenTargets,
        deliveries: [],
        reminders: policy.reminders,
        ...(policy.escalate ? { escalate: policy.escalate } : {}),
        // An approval takes no late answer: once it expires the agent has gone on without it.
        ...(policy.lateAnswerSeconds > 0 && !approval ? { lateAnswerSeconds: policy.lateAnswerSeconds } : {}),
        ...(runId ? { runId } : {}),
        ...(sessionKey ? { sessionKey } : {}),
        ...(askedBy ? { askedBy } : {}),
        ...(links ? { linksRequested: true as const } : {}),
        ...(approval ? { approval: approval as ApprovalSubject } : {}),
      };
      // The store refuses a second pending question for one session (SessionBusyError), and a scoped agent's
      // question past its quotas (QuotaExceededError, counted and inserted under one lock), across instances too.
      await stored(store.create(record, pendingLimits));
      known.remember(record);
      deadlines.expiresAt(record.expiresAtMs);
      deadlines.followUpAt(nextFollowUpMs(record));
      deadlines.watchDelivery(record);
      // Chat targets with no bot connected anywhere say so at once (`waiting`); the delivery watch runs on.
      const shown = await noBot.mark(record);
      events.emit("question.requested", shown);
      // Announced as a change too, so whoever follows updates (the SDK's onUpdate) hears it without a read.
      if (shown !== record) events.emit("question.updated", shown);
      return { id: record.id, expiresAtMs: record.expiresAtMs, record: shown };
    },

    /** Cancels a run's pending questions (`aborted`); with `askedBy`, only that agent credential's run of that id. */
    async abortRun(runId: string, askedBy?: string): Promise<{ cancelled: string[] }> {
      const cancelled: string[] = [];
      for (const record of await stored(store.list({ status: "pending", runId, ...(askedBy === undefined ? {} : { askedBy }) }))) {
        const outcome = await stored(store.resolve(record.id, { status: "cancelled", reason: "aborted", by: { surface: "api", via: "api" }, resolvedAtMs: now() }));
        if (outcome.ok) {
          cancelled.push(record.id);
          finished(outcome.record);
        }
      }
      return { cancelled };
    },
  };
}
