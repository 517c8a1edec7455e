import type { AskUserQuestion } from "../contract/schema.ts";
import { answeredResult, noAnswerResult, withOwnWords, type AskUserResult, type NoAnswerReason, type Surface } from "../contract/result.ts";

export type QuestionStatus = "pending" | "answered" | "expired" | "cancelled";

/** Why a question ended without an answer. `delivery_failed`: no surface could deliver it. */
export type RecordReason = NoAnswerReason | "delivery_failed";

/** Where a question goes. `chat` is required for chat surfaces; `users` narrows who may answer. */
export interface Target {
  surface: Surface;
  chat?: string;
  users?: string[];
}

/** One delivered copy of a prompt, so that every copy can be edited after resolution. */
export interface Delivery {
  surface: Surface;
  chat: string;
  messageRef: string;
  deliveredAtMs: number;
  /** An opaque fingerprint of what the copy shows now (question.copyRendered), so a restart edits only copies behind. */
  rendered?: string;
}

/**
 * A chat target's delivery trouble, as its bot reported it: `retrying` (a send failed and will be tried again,
 * next at `retryAtMs`) or `failed` (the chat can never receive it). A delivered copy for the chat supersedes it.
 */
export interface TargetState {
  surface: Surface;
  chat: string;
  /**
   * `waiting`: nothing can send it yet. Either no bot for this surface is connected to the gateway (any instance; the
   * gateway's own word, `noBotReason`): the delivery watch keeps running, and a bot that starts late still delivers
   * it. Or the bot waits for the person (question.deliveryFailed with `waiting`: a template went out, and the
   * prompt follows their reply; `waitsForPerson`): the delivery watch leaves the question be. Never replaces
   * `retrying`/`failed`.
   */
  state: "retrying" | "failed" | "waiting";
  reason: string;
  atMs: number;
  retryAtMs?: number;
}

export type ResolveVia = "button" | "text" | "web" | "api" | "modal";

/** Who resolved a question, where, and how. */
export interface ResolvedBy {
  surface: string;
  user?: string;
  /** A display name for summaries ("Answered on the web by Ada"). */
  userName?: string;
  chat?: string;
  via: ResolveVia;
}

/** One escalation step (the policy): if still pending `afterSeconds` after it was asked, also deliver to `targets`. */
export interface EscalationStep {
  afterSeconds: number;
  targets: Target[];
}

/** A reminder the gateway fired: the offset (seconds before expiry) and when. */
export interface ReminderSent {
  offsetSeconds: number;
  atMs: number;
}

/** An escalation step the gateway took: its index in `escalate`, and the targets it added. */
export interface EscalationTaken {
  step: number;
  afterSeconds: number;
  targets: Target[];
  atMs: number;
}

/** An answer that came after the question expired, within its late window. The status stays `expired`. */
export interface LateAnswer {
  answers: Record<string, string[]>;
  by: ResolvedBy;
  atMs: number;
}

/** A reminder message a bot sent for one copy (a reply to that copy's prompt), for once-only and clean-up. */
export interface ReminderCopy {
  surface: Surface;
  chat: string;
  offsetSeconds: number;
  messageRef: string;
  sentAtMs: number;
}

/** One target's answer page (issue 29 §2): `target` in formatTarget's text form, `url` absolute (`…/a/<token>`). */
export interface AnswerLink {
  target: string;
  url: string;
}

/** One file an approval would change: a unified diff (for a new file, its whole content as added lines). */
export interface ApprovalChange {
  path: string;
  kind: "add" | "update" | "delete";
  diff: string;
  /** Where an update moves the file to, when it does. */
  movePath?: string;
}

/**
 * An option of an approval question beyond Allow and Deny, and exactly what choosing it hands back to the agent:
 * `rules` are passed to the agent as they are (Claude Code's permission updates); none for a grant the agent keeps
 * itself (Codex's "accept for this session").
 */
export interface ApprovalGrant {
  label: string;
  rules?: unknown[];
}

/**
 * What an approval question approves, whole (issue 35): the agent and tool, the tool's input as JSON, where it runs,
 * and the files it changes. Every surface shows all of it, or does not offer Allow.
 */
export interface ApprovalSubject {
  /** Who asks: "Claude Code", "Codex", or what an SDK caller names. */
  agent: string;
  /** The tool as the agent names it: "Bash", "Write", "mcp__github__create_issue", Codex's "command". */
  tool: string;
  /** The tool's input as JSON, as the agent would run it. */
  input: unknown;
  cwd?: string;
  changes?: ApprovalChange[];
  /** The options after Allow and Deny, in order, with what each grants. */
  grants?: ApprovalGrant[];
  /**
   * What the person may change before approving: `command` (the input's `command` string) or `input` (the JSON
   * input); absent: nothing (the agent cannot take an edited version).
   */
  editable?: "command" | "input";
}

/** The input as the person edited it before approving (an approval answered "Allowed with changes"). */
export interface ApprovalEdit {
  input: unknown;
}

/** The durable question record (PRODUCT.md §3). */
export interface QuestionRecord {
  id: string;
  questions: AskUserQuestion[];
  timeoutSeconds: number;
  status: QuestionStatus;
  createdAtMs: number;
  expiresAtMs: number;
  resolvedAtMs?: number;
  /** Answers given so far to a multi-question prompt, held until the rest arrive (pending only). */
  partialAnswers?: Record<string, string[]>;
  /** Present when answered: every question id maps to one or more values. */
  answers?: Record<string, string[]>;
  /** Present when expired or cancelled. */
  reason?: RecordReason;
  /** A human-readable detail, e.g. why delivery failed. */
  detail?: string;
  by?: ResolvedBy;
  runId?: string;
  sessionKey?: string;
  /** The scoped agent credential (its id) that asked, for its pending-question quota; absent for the admin token. */
  askedBy?: string;
  targets: Target[];
  deliveries: Delivery[];
  /**
   * Targets whose delivery is retrying or failed, or waiting for a bot to connect (none delivered for that chat);
   * absent when there are none.
   */
  targetStates?: TargetState[];
  /**
   * The reminder policy: offsets in seconds before expiry, sorted descending (`[]`: none). Records written before
   * reminders existed read as `[]`.
   */
  reminders: number[];
  /**
   * The reminders fired, each offset once, in the order fired (absent when none). A `question.reminded` event
   * announces the last entry.
   */
  remindersSent?: ReminderSent[];
  /** Reminders that came due while no gateway ran and were no longer useful: never announced nor sent. */
  remindersSkipped?: ReminderSent[];
  /** The escalation policy (absent when none). */
  escalate?: EscalationStep[];
  /**
   * The escalation steps taken, each once, in the order taken (absent when none). Their targets are in `targets`
   * too. A `question.escalated` event announces the last entry.
   */
  escalated?: EscalationTaken[];
  /** How long after expiry a late answer is taken (absent or 0: never). */
  lateAnswerSeconds?: number;
  /** Set when the question expired with a late window: late answers are taken until then. */
  lateUntilMs?: number;
  /** The late answer, once taken (first wins). */
  lateAnswer?: LateAnswer;
  /** The reminder messages the bots sent (absent when none). */
  reminderCopies?: ReminderCopy[];
  /** An approval question's whole subject (issue 35); absent on other questions. */
  approval?: ApprovalSubject;
  /** The input as edited and approved (an Allow with changes); the original stays in `approval.input`. */
  approvalEdit?: ApprovalEdit;
  /** question.request asked for answer links (`links: true`): every target gets one, escalated targets too. */
  linksRequested?: true;
  /**
   * Each linked target's answer page, in target order: every target with `linksRequested`, else the targets on a
   * surface whose descriptor sets `answerLinks`. Made by the gateway on every read (signed with its link key), never
   * stored; absent when no target has one.
   */
  links?: AnswerLink[];
}

/** The ask_user result a terminal record stands for, or undefined while it is pending. */
export function recordToResult(record: QuestionRecord): AskUserResult | undefined {
  switch (record.status) {
    case "pending":
      return undefined;
    case "answered": {
      const by = record.by;
      const result = answeredResult(
        record.answers ?? {},
        by ? withOwnWords({ surface: by.surface, via: by.via, ...(by.user ? { user: by.user } : {}), ...(by.chat ? { chat: by.chat } : {}) }, record.questions, record.answers ?? {}) : undefined,
      );
      return record.approvalEdit ? { ...result, approvalEdit: { input: record.approvalEdit.input } } : result;
    }
    case "expired":
      return noAnswerResult("expired");
    case "cancelled":
      if (record.reason === "delivery_failed") return { status: "delivery_failed", reason: record.detail ?? "the question could not be delivered" };
      return noAnswerResult(record.reason === "skipped" || record.reason === "aborted" ? record.reason : "cancelled");
  }
}

/** True for a question record (by its shape): what the answer-link views look for in a store's or a method's result. */
export function isQuestionRecord(value: unknown): value is QuestionRecord {
  return typeof value === "object" && value !== null && typeof (value as QuestionRecord).id === "string" && Array.isArray((value as QuestionRecord).targets) && Array.isArray((value as QuestionRecord).questions);
}
