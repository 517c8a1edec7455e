import pg from "pg";
import type { QuestionRecord } from "../../../record/record.ts";
import { deliveriesFromJson, recordToParams, resolutionToParams, rowToRecord, type QuestionRow } from "../kit/sql-row.ts";
import { lateUntilSql } from "../kit/late-window-sql.ts";
import type { Resolution } from "../kit/types.ts";

/**
 * What reads select from `questions q`: the columns SQLite's decoder expects (JSON columns as text), and the
 * record's deliveries in the order they were recorded. Rows decode with the SQLite store's `rowToRecord`, so both
 * stores apply the same shape checks and the same field-presence rules.
 */
export const READ_RECORD = `q.id, q.status, q.created_at_ms, q.expires_at_ms, q.resolved_at_ms, q.timeout_seconds,
  q.run_id, q.session_key, q.reason, q.detail, q.questions_json::text AS questions_json,
  q.answers_json::text AS answers_json, q.by_json::text AS by_json, q.targets_json::text AS targets_json,
  q.partial_json::text AS partial_json, q.asked_by,
  q.policy_json::text AS policy_json, q.progress_json::text AS progress_json, q.late_answer_seconds, q.late_until_ms,
  q.late_json::text AS late_json,
  (SELECT COALESCE(json_agg(json_build_array(d.surface, d.chat, d.message_ref, d.delivered_at_ms, d.rendered) ORDER BY d.seq), '[]')::text
   FROM deliveries d WHERE d.question_id = q.id) AS deliveries_json,
  (SELECT json_agg(json_build_array(s.surface, s.chat, s.state, s.reason, s.at_ms, s.retry_at_ms) ORDER BY s.seq)::text
   FROM target_states s WHERE s.question_id = q.id
     AND NOT EXISTS (SELECT 1 FROM deliveries sd WHERE sd.question_id = s.question_id AND sd.surface = s.surface AND sd.chat = s.chat)
  ) AS states_json`;

/** A row as READ_RECORD selects it. */
export type PostgresQuestionRow = Omit<QuestionRow, "surfaces" | "deliveries_json"> & { deliveries_json: string };

export function postgresRowToRecord(row: PostgresQuestionRow): QuestionRecord {
  // The decoder never reads `surfaces` (a filter column): the row is passed without it, not copied to add it.
  return rowToRecord(row as QuestionRow, deliveriesFromJson(row.deliveries_json));
}

/** BIGINT columns (ms times) as numbers: every stored time is well inside Number.MAX_SAFE_INTEGER. */
export function createPostgresTypes(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
  return types;
}

/** The create statement: the question, its chat targets and any deliveries, in one statement (one transaction). */
export const INSERT_RECORD = `WITH q AS (
    INSERT INTO questions (id, status, created_at_ms, expires_at_ms, resolved_at_ms, timeout_seconds, run_id, session_key,
      surfaces, reason, detail, questions_json, answers_json, by_json, targets_json, partial_json, asked_by,
      policy_json, progress_json, next_due_ms, late_answer_seconds, late_until_ms, late_json)
    VALUES ($1, $2, $3::bigint, $4::bigint, $5::bigint, $6::bigint, $7, $8, $9::text[], $10, $11,
      $12::json, $13::json, $14::json, $15::json, $16::jsonb, $23,
      $25::json, $26::json, $27::bigint, $28::bigint, $29::bigint, $30::json)
    RETURNING id
  ), targets AS (
    INSERT INTO question_targets (chat, surface, question_id)
    SELECT t.chat, t.surface, q.id FROM q, unnest($17::text[], $18::text[]) AS t (chat, surface)
    ON CONFLICT DO NOTHING
  ), delivered AS (
    INSERT INTO deliveries (question_id, surface, chat, message_ref, delivered_at_ms, rendered)
    SELECT q.id, d.surface, d.chat, d.message_ref, d.delivered_at_ms, d.rendered
    FROM q, unnest($19::text[], $20::text[], $21::text[], $22::bigint[], $24::text[]) WITH ORDINALITY AS d (surface, chat, message_ref, delivered_at_ms, rendered, n)
    ORDER BY d.n
    ON CONFLICT DO NOTHING
  )
  SELECT 1`;

export function recordToValues(record: QuestionRecord): unknown[] {
  const p = recordToParams(record);
  const chats = record.targets.filter((t) => t.chat !== undefined);
  return [
    p.id, p.status, p.created_at_ms, p.expires_at_ms, p.resolved_at_ms, p.timeout_seconds, p.run_id, p.session_key,
    [...new Set(record.targets.map((t) => t.surface))], p.reason, p.detail,
    p.questions_json, p.answers_json, p.by_json, p.targets_json, p.partial_json,
    chats.map((t) => t.chat), chats.map((t) => t.surface),
    record.deliveries.map((d) => d.surface), record.deliveries.map((d) => d.chat),
    record.deliveries.map((d) => d.messageRef), record.deliveries.map((d) => d.deliveredAtMs),
    p.asked_by ?? null, record.deliveries.map((d) => d.rendered ?? null),
    p.policy_json ?? null, p.progress_json ?? null, p.next_due_ms ?? null, p.late_answer_seconds ?? null, p.late_until_ms ?? null,
    p.late_json ?? null,
  ];
}

/**
 * The create statement of a record with no chat target and no delivery (a web question: nothing for the CTE's other
 * two inserts), as a plain INSERT: PostgreSQL plans and runs one insert instead of three.
 */
export const INSERT_PLAIN_RECORD = `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, resolved_at_ms, timeout_seconds, run_id,
    session_key, surfaces, reason, detail, questions_json, answers_json, by_json, targets_json, partial_json, asked_by,
    policy_json, progress_json, next_due_ms, late_answer_seconds, late_until_ms, late_json)
  VALUES ($1, $2, $3::bigint, $4::bigint, $5::bigint, $6::bigint, $7, $8, $9::text[], $10, $11,
    $12::json, $13::json, $14::json, $15::json, $16::jsonb, $17,
    $18::json, $19::json, $20::bigint, $21::bigint, $22::bigint, $23::json)`;

/** The statement and values that create `record`: the plain INSERT when it can, else the CTE. */
export function createStatement(record: QuestionRecord): { text: string; values: unknown[] } {
  const values = recordToValues(record);
  if (record.deliveries.length > 0 || record.targets.some((t) => t.chat !== undefined)) return { text: INSERT_RECORD, values };
  return { text: INSERT_PLAIN_RECORD, values: [...values.slice(0, 16), values[22], ...values.slice(24, 30)] };
}

/** The compare-and-set: applies a resolution only to a pending row (null keeps the stored value). */
export const RESOLVE_RECORD = `UPDATE questions q SET status = $2, resolved_at_ms = $3::bigint,
    answers_json = COALESCE($4::json, q.answers_json), by_json = COALESCE($5::json, q.by_json),
    reason = COALESCE($6, q.reason), detail = COALESCE($7, q.detail),
    late_until_ms = COALESCE(CASE WHEN $2 = 'expired' THEN ${lateUntilSql("$3::bigint", "q.")} END, q.late_until_ms)
  WHERE q.id = $1 AND q.status = 'pending'
  RETURNING ${READ_RECORD}`;

export function resolutionToValues(id: string, resolution: Resolution): unknown[] {
  const p = resolutionToParams(id, resolution);
  return [p.id, p.status, p.resolved_at_ms, p.answers_json, p.by_json, p.reason, p.detail];
}
