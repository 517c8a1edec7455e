import type { AskUserQuestion } from "./contract/schema.ts";
import { answeredResult, noAnswerResult, type AskUserResult, type NoAnswerReason, type Surface } from "./contract/result.ts";

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
  state: "retrying" | "failed";
  reason: string;
  atMs: number;
  retryAtMs?: number;
}

export type ResolveVia = "button" | "text" | "web" | "api" | "modal";

/** Who resolved a question, where, and how. */
export interface ResolvedBy {
  surface: string;
  user?: string;
  /** A display name for summaries ("Answered in Telegram by Ada"). */
  userName?: string;
  chat?: string;
  via: ResolveVia;
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
  /** Targets whose delivery is retrying or failed (none delivered for that chat); absent when there are none. */
  targetStates?: TargetState[];
}

/** The ask_user result a terminal record stands for, or undefined while it is pending. */
export function recordToResult(record: QuestionRecord): AskUserResult | undefined {
  switch (record.status) {
    case "pending":
      return undefined;
    case "answered": {
      const by = record.by;
      return answeredResult(
        record.answers ?? {},
        by ? { surface: by.surface, via: by.via, ...(by.user ? { user: by.user } : {}), ...(by.chat ? { chat: by.chat } : {}) } : undefined,
      );
    }
    case "expired":
      return noAnswerResult("expired");
    case "cancelled":
      if (record.reason === "delivery_failed") return { status: "delivery_failed", reason: record.detail ?? "the question could not be delivered" };
      return noAnswerResult(record.reason === "skipped" || record.reason === "aborted" ? record.reason : "cancelled");
  }
}
