import { z } from "zod";
import { createIssueList, formatIssues, tooManyFields, type IssueList, type TooManyFields } from "../kernel/issues.ts";
import { SURFACES } from "../contract/result.ts";
import { formatPath } from "../contract/normalize.ts";
import { LIMITS } from "../contract/schema.ts";
import { GatewayError } from "../kernel/errors.ts";
import { decodeListCursor, LIST_CURSOR_MAX_LENGTH } from "./list-filter.ts";
import { nulIssues } from "./nul.ts";
import { isPersonName, PERSON_NAME_RULE } from "../record/targets.ts";

/** The largest frame: a larger WebSocket frame drops its connection at its header; a larger HTTP body gets FRAME_TOO_LARGE (413). */
export const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * z.strictObject, except that an object with far too many unknown fields (see tooManyFields) gets them as one issue,
 * found with one look at its keys, instead of zod reading it key by key (80,000 fields took 50 ms).
 */
function strict<S extends z.core.$ZodLooseShape>(shape: S) {
  const fields = new Set(Object.keys(shape));
  return z.preprocess((value, ctx) => {
    const wide = tooManyFields(value, fields);
    if (wide) ctx.addIssue({ code: "custom", input: value, message: "unknown field", params: { tooManyFields: wide } });
    return value;
  }, z.strictObject(shape));
}

/**
 * A record of at most `max` entries, counted before any is read: zod reads every entry of a record (80,000 answers
 * took 430 ms to refuse), where an array's length is checked before its items.
 */
function boundedRecord<T extends z.ZodType>(value: T, max: number) {
  return z.preprocess((input, ctx) => {
    const count = typeof input === "object" && input !== null && !Array.isArray(input) ? Object.keys(input).length : 0;
    if (count > max) ctx.addIssue({ code: "custom", input, message: `must have at most ${max} entries (got ${count})` });
    return input;
  }, z.record(z.string(), value));
}

const id = z.string().min(1).max(128);
const surface = z.enum(SURFACES);
const text = z.string().min(1).max(256);
/** An opaque fingerprint of what a delivered copy shows now (question.copyRendered). */
const rendered = z.string().min(1).max(128);

export const targetSchema = strict({
  surface,
  chat: text.optional(),
  users: z.array(text).max(100).optional(),
})
  .refine((t) => t.surface === "web" || t.chat !== undefined, { message: "a chat surface needs a chat", path: ["chat"] })
  // A web target's users are people signed in with a person token (`web:<name>`): their names, as `token create` takes them.
  .superRefine((t, ctx) => {
    if (t.surface !== "web") return;
    // (An empty name is left to the length check, a NUL to the NUL check: each names its problem once.)
    for (const [i, name] of (t.users ?? []).entries()) {
      if (name !== "" && !isPersonName(name) && !name.includes("\u0000")) ctx.addIssue({ code: "custom", message: `a web target's users are people's names: ${PERSON_NAME_RULE}`, path: ["users", i] });
    }
  });

export const bySchema = strict({
  surface: z.string().min(1).max(32),
  user: text.optional(),
  userName: z.string().max(256).optional(),
  chat: text.optional(),
  via: z.enum(["button", "text", "web", "api", "modal"]).default("api"),
});

/** An opaque `nextCursor`, decoded to the position it continues after. */
const listCursor = z
  .string()
  .max(LIST_CURSOR_MAX_LENGTH)
  .transform((cursor, ctx) => {
    const position = decodeListCursor(cursor);
    if (position) return position;
    ctx.addIssue({ code: "custom", message: "is not a nextCursor from question.list (pass one back unchanged)" });
    return z.NEVER;
  });

const answerValues = z.union([z.string(), z.array(z.string()).max(64)]);
/** Answers are keyed by question id: a call has at most 3 questions, so 64 is only a bound on a hostile record. */
const answersSchema = boundedRecord(answerValues, 64);

/** The most reminders one question may have, and the most escalation steps. */
export const MAX_REMINDERS = 5;
export const MAX_ESCALATION_STEPS = 3;
/** The longest late-answer window: 7 days. */
export const MAX_LATE_ANSWER_SECONDS = 7 * 24 * 60 * 60;
const seconds = z.number().int().min(1).max(24 * 60 * 60);

/**
 * `reminders`: offsets in seconds before expiry (each at least 1 and below timeoutSeconds, which the service checks
 * once the timeout is known), at most MAX_REMINDERS; deduplicated and sorted descending. `[]`: no reminders.
 */
export const remindersSchema = z
  .array(seconds)
  .max(MAX_REMINDERS)
  .transform((offsets) => [...new Set(offsets)].sort((a, b) => b - a));

/** One escalation step: `afterSeconds` after it was asked (below timeoutSeconds), also deliver to `targets`. */
export const escalationStepSchema = strict({ afterSeconds: seconds, targets: z.array(targetSchema).min(1).max(20) });
export const escalateSchema = z.array(escalationStepSchema).max(MAX_ESCALATION_STEPS);
export const lateAnswerSecondsSchema = z.number().int().min(0).max(MAX_LATE_ANSWER_SECONDS);

/** What a delivery claim is for: the prompt itself (default), or the reminder at one offset (`reminder:<offset>`). */
const copyKind = z
  .string()
  .max(64)
  .regex(/^(prompt|reminder:[1-9][0-9]{0,5})$/, 'must be "prompt" or "reminder:<offsetSeconds>"');

/** An approval's subject in all (issue 35): larger is INVALID_PARAMS, and the asker falls back to its own prompt. */
export const MAX_APPROVAL_BYTES = 256 * 1024;
/** A grant's label names its rule and the file it is saved in, so it may be longer than an ask_user label. */
export const APPROVAL_LABEL_MAX_GRAPHEMES = 200;

const approvalChangeSchema = strict({
  path: z.string().min(1).max(4096),
  kind: z.enum(["add", "update", "delete"]),
  diff: z.string(),
  movePath: z.string().min(1).max(4096).optional(),
});

/**
 * `question.request`'s `approval`: what the one question approves, whole. `input` is any JSON; the whole object is
 * at most MAX_APPROVAL_BYTES as UTF-8 JSON, and a larger one names the field that makes it so.
 */
export const approvalSchema = strict({
  agent: z.string().min(1).max(128),
  tool: z.string().min(1).max(256),
  input: z.unknown(),
  cwd: z.string().min(1).max(4096).optional(),
  changes: z.array(approvalChangeSchema).max(1000).optional(),
  grants: z.array(strict({ label: z.string().min(1).max(LIMITS.labelMaxLength), rules: z.array(z.unknown()).max(100).optional() })).max(LIMITS.maxOptions - 2).optional(),
  editable: z.enum(["command", "input"]).optional(),
}).superRefine((approval, ctx) => {
  const bytes = jsonBytes(approval);
  if (bytes <= MAX_APPROVAL_BYTES) return;
  // Name the field that weighs most, so the asker knows what to cut (or to fall back to its own prompt).
  const [field] = Object.entries(approval).map(([key, value]) => [key, jsonBytes(value)] as const).sort((a, b) => b[1] - a[1]);
  ctx.addIssue({
    code: "custom",
    path: field ? [field[0]] : [],
    message: `the approval must be at most ${MAX_APPROVAL_BYTES} bytes in all (got ${bytes}${field ? `, ${field[1]} of them in this field` : ""})`,
  });
});

function jsonBytes(value: unknown): number {
  try {
    return new TextEncoder().encode(JSON.stringify(value) ?? "").length;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** An Allow with changes: the input the person edited and approved (the answer page and the Control UI). */
export const approvalEditSchema = strict({ input: z.unknown() });

export const methodParams = {
  "question.request": strict({
    questions: z.unknown(),
    timeoutSeconds: z.unknown().optional(),
    runId: id.optional(),
    sessionKey: id.optional(),
    targets: z.array(targetSchema).min(1).max(20).optional(),
    /** Also wait up to this long for the answer: the payload is then question.waitAnswer's, saving a round trip. */
    waitMs: z.number().int().min(0).max(10 * 60_000).optional(),
    /** Reminder offsets in seconds before expiry; default REMIND_BEFORE_SECONDS; `[]`: none. */
    reminders: remindersSchema.optional(),
    /** Also deliver to more targets if still pending after a while; each step happens once. */
    escalate: escalateSchema.optional(),
    /** How long after expiry a late answer is still taken; default LATE_ANSWER_SECONDS; 0: never. */
    lateAnswerSeconds: lateAnswerSecondsSchema.optional(),
    /** true: every target gets an answer link (`/a/<token>`, in the record's and this response's `links`). */
    links: z.boolean().optional(),
    /** An approval question's whole subject: the one question is Allow, Deny, then each of `approval.grants`. */
    approval: approvalSchema.optional(),
  }),
  "question.waitAnswer": strict({ id, timeoutMs: z.number().int().min(0).max(10 * 60_000).optional() }),
  "question.resolve": z.union([
    /** `messageRef`: the platform's id of the person's message; with `by.surface` and `by.chat`, taken once only. */
    strict({ id, answers: answersSchema, by: bySchema.optional(), messageRef: text.optional(), edit: approvalEditSchema.optional() }),
    strict({ id, cancel: z.literal(true), reason: z.enum(["skipped", "cancelled", "aborted"]).default("cancelled"), by: bySchema.optional() }),
  ]),
  /**
   * `messageRef`: the platform's id of the person's message. With `by.surface` and `by.chat` it is a key the gateway
   * takes once: a re-delivered copy of the same message is refused with DUPLICATE_REPLY, on any question.
   */
  "question.reply": strict({ id, text: z.string().max(LIMITS.replyMaxLength), by: bySchema.optional(), messageRef: text.optional() }),
  "question.get": strict({ id }),
  "question.list": strict({
    status: z.enum(["pending", "answered", "expired", "cancelled"]).optional(),
    runId: id.optional(),
    sessionKey: id.optional(),
    surface: surface.optional(),
    /** Questions with a target in this chat (on `surface`, when given too). */
    chat: text.optional(),
    /** true: only questions with a late answer, the newest late answer first. */
    late: z.boolean().optional(),
    /** The page size: default 100, at most 1000 a page (a larger limit, up to 10,000, is served 1000 at a time). */
    limit: z.number().int().min(1).max(10_000).optional(),
    /** A previous page's `nextCursor`: the next page, older records. The payload is `{questions, nextCursor?}`. */
    cursor: listCursor.optional(),
  }),
  "question.delivered": strict({ id, surface, chat: text, messageRef: text, rendered: rendered.optional() }),
  /**
   * A bot reports a failed send. `permanent` (default true): the chat can never receive it, so that target fails at
   * once. `permanent: false`: the bot keeps retrying (next at `retryAtMs`); the target is `retrying`, with the reason.
   * `sent: true`: the platform took the copy (it may be recorded as delivered, as `messageRef` when given) and then
   * refused it for good: that delivery is withdrawn and the target fails, as if the send itself had failed.
   * `waiting: true` (not permanent): the copy cannot go out until the person does something (a template went out
   * to open the conversation, and the prompt follows their reply); the target is `waiting`, with the reason, the
   * delivery watch does not end the question for it, and the bot sends the copy when it can.
   */
  "question.deliveryFailed": strict({
    id,
    surface,
    chat: text,
    reason: z.string().max(1000),
    permanent: z.boolean().optional(),
    retryAtMs: z.number().int().min(0).optional(),
    sent: z.literal(true).optional(),
    messageRef: text.optional(),
    waiting: z.literal(true).optional(),
  })
    .refine((p) => p.waiting !== true || (p.permanent === false && p.sent !== true), { message: "a copy waiting for the person has not failed: waiting needs permanent: false, and no sent", path: ["waiting"] })
    .refine((p) => p.sent !== true || p.permanent !== false, { message: "a copy refused after it was sent has failed for good: permanent cannot be false", path: ["permanent"] })
    .refine((p) => p.messageRef === undefined || p.sent === true, { message: "names the refused copy: only with sent: true", path: ["messageRef"] }),
  /** A bot records what one delivered copy shows now (an opaque fingerprint), so a restart edits only copies behind. */
  "question.copyRendered": strict({ id, surface, chat: text, rendered }),
  /**
   * A bot asks to send one copy before sending it: `{ok: true, leaseUntilMs}` for exactly one claimant (its own
   * repeat renews it), `{ok: false, reason}` for every other. A claim whose bot never reports the delivery lapses
   * after `leaseMs`, and another bot may then claim it, so the question is still delivered.
   */
  "question.claimDelivery": strict({
    id,
    surface,
    chat: text,
    claimant: z.string().min(1).max(128),
    leaseMs: z.number().int().min(1_000).max(10 * 60_000).default(30_000),
    /**
     * Which message: "prompt" (default) or "reminder:<offsetSeconds>". A reminder's claim is granted only while the
     * question is pending and that reminder has fired but was not sent to this chat; it never counts as a delivery
     * claim for the delivery watch.
     */
    copy: copyKind.optional(),
  }),
  /** A bot reports a reminder it sent for one copy (a reply to that copy's prompt); idempotent per (surface, chat, offsetSeconds). */
  "question.reminderSent": strict({ id, surface, chat: text, offsetSeconds: seconds, messageRef: text }),
  "run.abort": strict({ runId: id }),
} as const;

export type MethodName = keyof typeof methodParams;
export type MethodParams<M extends MethodName> = z.output<(typeof methodParams)[M]>;

export const METHOD_NAMES = Object.keys(methodParams) as MethodName[];

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === "string" && Object.hasOwn(methodParams, name);
}

/**
 * Validates a method's params, throwing INVALID_PARAMS with the field-level list: at most MAX_ISSUES problems and a
 * count of the rest. Params that pass the schemas are then searched once, all of them, for U+0000 (see nul.ts).
 */
export function parseParams<M extends MethodName>(method: M, params: unknown): MethodParams<M> {
  return parseWith(methodParams[method], method, params) as MethodParams<M>;
}

function parseWith<S extends z.ZodType>(schema: S, method: string, params: unknown): z.output<S> {
  const result = schema.safeParse(params ?? {});
  const issues = result.success ? nulIssues(result.data) : createIssueList();
  if (!result.success) for (const issue of result.error.issues) addIssue(issues, issue, []);
  if (result.success && issues.size === 0) return result.data;
  const listed = issues.list();
  throw new GatewayError("INVALID_PARAMS", `invalid params for ${method}: ${formatIssues(listed, "; ", "params")}`, { issues: listed });
}

function addIssue(issues: IssueList, issue: z.core.$ZodIssue, prefix: PropertyKey[]): void {
  const path = [...prefix, ...issue.path];
  // Many unknown fields are one issue (zod's, or strict's when there are far too many); only the first few become messages.
  const wide: TooManyFields | undefined = issue.code === "custom" ? issue.params?.tooManyFields : undefined;
  const unknown = issue.code === "unrecognized_keys" ? { first: issue.keys, count: issue.keys.length } : wide;
  if (unknown) issues.addEach(unknown.count, (k) => ({ path: formatPath([...path, unknown.first[k]!]), message: "unknown field" }));
  else if (issue.code === "invalid_union" && issue.errors.length > 0) {
    // An answer or a cancel, a text or a list of them: name the problems of the branch the value comes closest to,
    // one of its own type before any other.
    const distance = (branch: z.core.$ZodIssue[]) => branch.length + (branch.some((i) => i.code === "invalid_type" && i.path.length === 0) ? 1000 : 0);
    const closest = issue.errors.reduce((best, branch) => (distance(branch) < distance(best) ? branch : best));
    for (const inner of closest) addIssue(issues, inner, path);
  } else issues.add({ path: formatPath(path), message: issue.message });
}

/** The events a WebSocket connection receives; all of them until it sends events.subscribe. */
export const EVENT_NAMES = [
  "question.requested",
  "question.updated",
  "question.resolved",
  /** A reminder came due (the record's `remindersSent` has it): bots send a reminder reply to each copy. */
  "question.reminded",
  /** An escalation step was taken (its targets are in `targets` and `escalated`): bots deliver the new copies. */
  "question.escalated",
  /** An expired question got a late answer (`lateAnswer`); its status stays `expired`. */
  "question.lateAnswered",
] as const;
export type GatewayEventName = (typeof EVENT_NAMES)[number];

/**
 * `events.subscribe {events}` (WebSocket only, like `connect`): from now on this connection receives only these
 * events. `[]` for an agent that only asks and waits. Answers `{events}`.
 */
const subscribeParams = strict({ events: z.array(z.enum(EVENT_NAMES)).max(EVENT_NAMES.length) });

export function parseSubscribeParams(params: unknown): Array<(typeof EVENT_NAMES)[number]> {
  return [...new Set(parseWith(subscribeParams, "events.subscribe", params).events)];
}

/**
 * `bot.status {platform}` (WebSocket only, a bot's connection): whether the bot reaches its platform's API, as it
 * last found out. `reachable: null` when the bot cannot tell (no one-call check for that platform). The gateway keeps
 * it on the connection for /readyz, which is not ready while a connected bot says it cannot reach its API.
 */
const botStatusParams = strict({
  platform: strict({ reachable: z.boolean().nullable(), detail: z.string().max(300).optional() }),
});
export type BotPlatformStatus = z.infer<typeof botStatusParams>["platform"];

export function parseBotStatusParams(params: unknown): BotPlatformStatus {
  return parseWith(botStatusParams, "bot.status", params).platform;
}

/** A request frame: `{type:"req", id, method, params}`. */
export const requestFrameSchema = z.object({
  type: z.literal("req"),
  id: z.union([z.string().max(128), z.number()]),
  method: z.string().max(128),
  params: z.unknown().optional(),
});

/**
 * True for a frame that `requestFrameSchema` accepts as it is, checked without zod (the hot path). False means
 * "ask zod", never "refuse": the schema stays the one definition of a valid frame.
 */
export function isRequestFrame(frame: unknown): frame is { type: "req"; id: string | number; method: string; params?: unknown } {
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return false;
  const { type, id, method } = frame as Record<string, unknown>;
  return (
    type === "req" &&
    ((typeof id === "string" && id.length <= 128) || (typeof id === "number" && Number.isFinite(id))) &&
    typeof method === "string" &&
    method.length <= 128
  );
}
