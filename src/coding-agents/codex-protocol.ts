/**
 * The part of the `codex app-server` protocol (Codex 0.171, `codex app-server generate-json-schema`) that asks a
 * person: the server→client requests ask-user-bridge answers, their params as zod schemas (only the fields read,
 * with caps so hostile params stay small), and the responses Codex expects.
 */
import { z } from "zod";

/** The server requests answered here, by their exact method names. */
export const CODEX_METHODS = {
  requestUserInput: "item/tool/requestUserInput",
  commandApproval: "item/commandExecution/requestApproval",
  fileChangeApproval: "item/fileChange/requestApproval",
  /** The v1 (conversation) API's approvals, still in the schema's ServerRequest. */
  legacyCommandApproval: "execCommandApproval",
  legacyPatchApproval: "applyPatchApproval",
} as const;

/** The notification Codex sends when it settles a server request itself (turn interrupted, thread closed). */
export const SERVER_REQUEST_RESOLVED = "serverRequest/resolved";

/** More questions than this in one request are refused as invalid params (Codex tells its model at most 3). */
export const MAX_CODEX_QUESTIONS = 15;
const MAX_OPTIONS = 20;
const MAX_TEXT = 20_000;
const MAX_CHANGES = 500;

const text = z.string().max(MAX_TEXT);
const optionalText = text.nullish();

const codexOption = z.object({ label: text, description: optionalText });

const codexQuestion = z.object({
  id: z.string().min(1).max(256),
  header: text,
  question: text,
  /** Codex adds a free-form answer ("None of the above" plus notes in its own UI). */
  isOther: z.boolean().nullish(),
  /** The answer is a secret (a password): it is never asked in a chat. */
  isSecret: z.boolean().nullish(),
  options: z.array(codexOption).max(MAX_OPTIONS).nullish(),
});
export type CodexQuestion = z.infer<typeof codexQuestion>;

const threadFields = { threadId: z.string().max(256), turnId: z.string().max(256), itemId: z.string().max(256) };

export const requestUserInputParams = z.object({
  ...threadFields,
  questions: z
    .array(codexQuestion)
    .min(1)
    .max(MAX_CODEX_QUESTIONS)
    .refine((questions) => new Set(questions.map((q) => q.id)).size === questions.length, "question ids must be unique"),
});

export const commandApprovalParams = z.object({
  ...threadFields,
  command: optionalText,
  cwd: optionalText,
  reason: optionalText,
  /** "command", "writeStdin" (input to a running command) or "humanCommand" (accept, decline or cancel only). */
  kind: z.string().max(64).nullish(),
  networkApprovalContext: z.object({ host: text, protocol: z.string().max(64) }).nullish(),
  /** The decisions Codex offers for this prompt; absent from older servers. */
  availableDecisions: z.array(z.unknown()).max(50).nullish(),
});

export const fileChangeApprovalParams = z.object({ ...threadFields, reason: optionalText, grantRoot: optionalText });

const changeKind = z.enum(["add", "delete", "update"]);

/** A diff or a file's content: long, but bounded (an approval's whole subject is at most 256 KiB). */
const patchText = z.string().max(512 * 1024);

/** One file of a change: what the approval question shows (its diff, when Codex sent one). */
export interface FileChangeSummary {
  path: string;
  kind: z.infer<typeof changeKind>;
  movePath?: string;
  diff?: string;
}

/** The `fileChange` item of `item/started`, which carries the files that `item/fileChange/requestApproval` lacks. */
export const fileChangeItem = z.object({
  item: z.object({
    type: z.literal("fileChange"),
    id: z.string().max(256),
    changes: z
      .array(z.object({ path: text, kind: z.object({ type: changeKind, move_path: optionalText }), diff: patchText.nullish() }))
      .max(MAX_CHANGES),
  }),
});

export const legacyCommandApprovalParams = z.object({
  conversationId: z.string().max(256),
  command: z.array(text).max(1000),
  cwd: optionalText,
  reason: optionalText,
});

export const legacyPatchApprovalParams = z.object({
  conversationId: z.string().max(256),
  fileChanges: z
    .record(text, z.object({ type: changeKind, move_path: optionalText, content: patchText.nullish(), unified_diff: patchText.nullish() }))
    .refine((changes) => Object.keys(changes).length <= MAX_CHANGES, "too many file changes"),
  reason: optionalText,
  grantRoot: optionalText,
});

/** `item/tool/requestUserInput`'s response: the answers by Codex question id; a question left out got no answer. */
export interface CodexUserInputResponse {
  answers: Record<string, { answers: string[] }>;
}

/** The decisions sent for v2 approvals (CommandExecutionApprovalDecision, FileChangeApprovalDecision). */
export type CodexApprovalDecision = "accept" | "acceptForSession" | "decline";

/** The decisions sent for the legacy approvals (ReviewDecision); `denied` carries words for the model. */
export type CodexReviewDecision = "approved" | "approved_for_session" | { denied: { rejection: string } };

/** A JSON-RPC reply to one server request: its result, or an error (params that cannot be read). */
export type CodexReply = { result: unknown } | { error: { code: number; message: string } };

/** JSON-RPC's "Invalid params". */
export const INVALID_PARAMS = -32602;
