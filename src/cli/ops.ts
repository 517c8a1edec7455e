import type { Config } from "../runtime/config.ts";
import type { QuestionRecord } from "../record/record.ts";
import { formatTarget } from "../record/targets.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import { connectFromConfig } from "../client/from-config.ts";
import { newestLateFirst } from "../client/index.ts";

type IO = { out: (s: string) => void; err: (s: string) => void };

export const LIST_HELP = `Usage: ask-user-bridge list [--status pending|answered|expired|cancelled] [--run-id ID] [--session KEY] [--surface S]
                          [--late] [--limit N] [--json]

Lists question records, newest first, as a table (ID, STATUS, CREATED, TARGETS, QUESTION);
--json prints the records as a JSON array instead (with every field: reminders sent, escalation steps taken,
the late answer).
  --late   only questions answered after they expired, newest late answer first, as a table
           (ID, EXPIRED, ANSWERED LATE, BY, QUESTION, ANSWER)`;
export const GET_HELP = `Usage: ask-user-bridge get ID

Prints one question record as JSON.`;
export const CANCEL_HELP = `Usage: ask-user-bridge cancel ID [--reason cancelled|skipped|aborted]

Cancels a pending question; the asker gets no_answer with that reason.`;

const LIST_COLUMNS = ["ID", "STATUS", "CREATED", "TARGETS", "QUESTION"] as const;

function summaryRow(r: QuestionRecord): string[] {
  const first = r.questions[0];
  const what = first ? `${first.header}: ${first.question}` : "";
  const extra = r.questions.length > 1 ? ` (+${r.questions.length - 1})` : "";
  const status = r.status === "cancelled" ? `cancelled/${r.reason ?? "?"}` : r.status;
  return [r.id, status, new Date(r.createdAtMs).toISOString(), r.targets.map(formatTarget).join(","), `${what}${extra}`];
}

/** Rows under a header row; each column as wide as its widest cell, the last one left ragged. */
function table(header: readonly string[], body: string[][]): string {
  const rows = [[...header], ...body];
  const widths = header.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")).join("\n");
}

/** The records as a table under a header row; each column as wide as its widest cell, the last one left ragged. */
export function listTable(records: QuestionRecord[]): string {
  return table(LIST_COLUMNS, records.map(summaryRow));
}

const LATE_COLUMNS = ["ID", "EXPIRED", "ANSWERED LATE", "BY", "QUESTION", "ANSWER"] as const;

/** Late answers as a table: when the question expired, when and by whom it was answered, and what. */
export function lateTable(records: QuestionRecord[]): string {
  const rows = records.flatMap((r) => {
    const late = r.lateAnswer;
    if (!late) return [];
    const first = r.questions[0];
    const answer = r.questions.map((q) => `${r.questions.length > 1 ? `${q.header}: ` : ""}${(late.answers[q.id] ?? []).join(", ")}`).join("; ");
    const by = [late.by.surface, late.by.userName ?? late.by.user].filter(Boolean).join(":");
    return [[r.id, new Date(r.resolvedAtMs ?? r.expiresAtMs).toISOString(), new Date(late.atMs).toISOString(), by, first ? `${first.header}: ${first.question}` : "", answer]];
  });
  return table(LATE_COLUMNS, rows);
}

export async function runList(argv: string[], config: Config, io: IO): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    status: { type: "string" },
    "run-id": { type: "string" },
    session: { type: "string" },
    surface: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
    late: { type: "boolean" },
  });
  if (values.help) return io.out(LIST_HELP), 0;
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit: "${values.limit}" is not a positive integer`);
  const client = await connectFromConfig(config);
  try {
    const filter = {
      limit,
      ...(values.status ? { status: values.status } : {}),
      ...(values["run-id"] ? { runId: values["run-id"] } : {}),
      ...(values.session ? { sessionKey: values.session } : {}),
      ...(values.surface ? { surface: values.surface } : {}),
      ...(values.late ? { late: true } : {}),
    };
    const { questions: found } = await client.call<{ questions: QuestionRecord[] }>("question.list", filter);
    const questions = values.late ? newestLateFirst(found) : found;
    if (values.json) io.out(JSON.stringify(questions, null, 2));
    else if (values.late) io.out(questions.length ? lateTable(questions) : "No late answers.");
    else io.out(questions.length ? listTable(questions) : "No questions.");
    return 0;
  } finally {
    client.close();
  }
}

export async function runGet(argv: string[], config: Config, io: IO): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {}, true);
  if (values.help) return io.out(GET_HELP), 0;
  if (positionals.length !== 1) throw new UsageError("get takes exactly one question id");
  const client = await connectFromConfig(config);
  try {
    io.out(JSON.stringify(await client.get(positionals[0]!), null, 2));
    return 0;
  } finally {
    client.close();
  }
}

export async function runCancel(argv: string[], config: Config, io: IO): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { reason: { type: "string" } }, true);
  if (values.help) return io.out(CANCEL_HELP), 0;
  if (positionals.length !== 1) throw new UsageError("cancel takes exactly one question id");
  const reason = values.reason ?? "cancelled";
  if (!["cancelled", "skipped", "aborted"].includes(reason)) throw new UsageError(`--reason: "${reason}" is not one of cancelled, skipped, aborted`);
  const client = await connectFromConfig(config);
  try {
    const record = await client.resolve({ id: positionals[0]!, cancel: true, reason: reason as "cancelled", by: { surface: "cli", via: "api" } });
    io.out(JSON.stringify(record, null, 2));
    return 0;
  } finally {
    client.close();
  }
}
