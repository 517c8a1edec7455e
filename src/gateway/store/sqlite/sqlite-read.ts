import type Database from "better-sqlite3";
import type { ListFilter, PendingFilter } from "../kit/types.ts";
import type { QuestionRow } from "../kit/sql-row.ts";

export const COLUMNS = `id, status, created_at_ms, expires_at_ms, resolved_at_ms, timeout_seconds, run_id, session_key,
  surfaces, reason, detail, questions_json, answers_json, by_json, targets_json, partial_json, asked_by,
  policy_json, progress_json, next_due_ms, late_answer_seconds, late_until_ms, late_json`;

/**
 * What reads select: the columns, and the record's deliveries and target states in the same statement (in the order
 * they were recorded). Reads leave out the state of a chat with a delivered copy; the record cell loads them all.
 */
const readColumns = (states: "visible" | "all"): string => `${COLUMNS},
  (SELECT json_group_array(json_array(surface, chat, message_ref, delivered_at_ms, rendered) ORDER BY rowid)
   FROM deliveries WHERE question_id = questions.id) AS deliveries_json,
  (SELECT json_group_array(json_array(s.surface, s.chat, s.state, s.reason, s.at_ms, s.retry_at_ms) ORDER BY s.rowid)
   FROM target_states s WHERE s.question_id = questions.id${
     states === "visible"
       ? `
     AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.question_id = s.question_id AND d.surface = s.surface AND d.chat = s.chat)`
       : ""
   }
  ) AS states_json`;

export const READ = readColumns("visible");
export const READ_ALL_STATES = readColumns("all");

export interface SqliteFilters {
  list(filter: ListFilter): Database.Statement<[Record<string, unknown>], QuestionRow>;
  count(filter: PendingFilter): Database.Statement<[Record<string, unknown>], { n: number }>;
}

/** The list and pending-count statements, one per combination of filter fields, prepared once each. */
export function createSqliteFilters(db: Database.Database): SqliteFilters {
  const listStatements = new Map<string, Database.Statement<[Record<string, unknown>], QuestionRow>>();
  const countStatements = new Map<string, Database.Statement<[Record<string, unknown>], { n: number }>>();
  const prepared = <S>(cache: Map<string, S>, text: string): S => {
    let statement = cache.get(text);
    if (!statement) cache.set(text, (statement = db.prepare(text) as S));
    return statement;
  };
  return {
    list(filter: ListFilter) {
      const where: string[] = [];
      if (filter.status !== undefined) where.push("status = @status");
      if (filter.runId !== undefined) where.push("run_id = @runId");
      if (filter.sessionKey !== undefined) where.push("session_key = @sessionKey");
      if (filter.askedBy !== undefined) where.push("asked_by = @askedBy");
      if (filter.late === true) where.push("late_json IS NOT NULL");
      if (filter.surface !== undefined) where.push("instr(surfaces, ',' || @surface || ',') > 0");
      if (filter.chat !== undefined) {
        where.push(
          `id IN (SELECT question_id FROM question_targets WHERE chat = @chat${filter.surface !== undefined ? " AND surface = @surface" : ""})`,
        );
      }
      // A row value, so the (created_at_ms DESC, id DESC) indexes seek straight to the page.
      if (filter.before !== undefined) where.push("(created_at_ms, id) < (@beforeCreatedAtMs, @beforeId)");
      const text = `SELECT ${READ} FROM questions ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
        ORDER BY created_at_ms DESC, id DESC LIMIT @limit`;
      return prepared(listStatements, text);
    },
    count(filter: PendingFilter) {
      const where = ["status = 'pending'"];
      if (filter.runId !== undefined) where.push("run_id = @runId");
      if (filter.askedBy !== undefined) where.push("asked_by = @askedBy");
      if (filter.surface !== undefined) where.push("instr(surfaces, ',' || @surface || ',') > 0");
      return prepared(countStatements, `SELECT count(*) AS n FROM questions WHERE ${where.join(" AND ")}`);
    },
  };
}
