import path from "node:path";
import Database from "better-sqlite3";
import { preparePrivateDir, restrictFile } from "../../../runtime/data-dir.ts";
import { SQLITE_FILE_NAME } from "./sqlite-file.ts";
import { SESSIONS_TABLE_SQL } from "../kit/credentials-table.ts";

export { SQLITE_FILE_NAME };

/**
 * The connection settings, applied in this order on every open (the benchmark reuses them exactly).
 *
 * WAL with `synchronous = NORMAL`: a commit has reached the WAL file (the OS page cache) before it returns,
 * so it survives the process crashing or being killed with SIGKILL, which is the durability requirement.
 * Only an OS crash or power loss can lose the last few commits, and even that never corrupts the database.
 * `busy_timeout` makes a second connection (a CLI, a benchmark) wait for the write lock instead of failing.
 */
export const SQLITE_PRAGMAS = [
  "journal_mode = WAL",
  "synchronous = NORMAL",
  "busy_timeout = 5000",
  "foreign_keys = ON",
] as const;

/**
 * Schema migrations: entry `i` takes `PRAGMA user_version` from `i` to `i + 1`. Append, never edit.
 * `surfaces` holds the targets' surfaces as `,SURFACE,web,` so the surface filter needs no JSON.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE questions (
     id              TEXT PRIMARY KEY NOT NULL,
     status          TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'expired', 'cancelled')),
     created_at_ms   INTEGER NOT NULL,
     expires_at_ms   INTEGER NOT NULL,
     resolved_at_ms  INTEGER,
     timeout_seconds INTEGER NOT NULL,
     run_id          TEXT,
     session_key     TEXT,
     surfaces        TEXT NOT NULL,
     reason          TEXT,
     detail          TEXT,
     questions_json  TEXT NOT NULL,
     answers_json    TEXT,
     by_json         TEXT,
     targets_json    TEXT NOT NULL
   );
   CREATE INDEX questions_by_created ON questions (created_at_ms DESC, id DESC);
   CREATE INDEX questions_pending_created ON questions (created_at_ms DESC, id DESC) WHERE status = 'pending';
   CREATE INDEX questions_by_run ON questions (run_id, created_at_ms DESC, id DESC) WHERE run_id IS NOT NULL;
   CREATE INDEX questions_by_session ON questions (session_key, created_at_ms DESC, id DESC) WHERE session_key IS NOT NULL;
   CREATE INDEX questions_pending_expiry ON questions (expires_at_ms) WHERE status = 'pending';
   CREATE TABLE deliveries (
     question_id     TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     surface         TEXT NOT NULL,
     chat            TEXT NOT NULL,
     message_ref     TEXT NOT NULL,
     delivered_at_ms INTEGER NOT NULL,
     PRIMARY KEY (question_id, surface, chat)
   );`,
  `ALTER TABLE questions ADD COLUMN partial_json TEXT;`,
  // Each chat target once, so that listing one chat's questions is an index lookup, not a scan of every record.
  // Rows written before this version are filled in from targets_json (a corrupt targets_json adds nothing).
  `CREATE TABLE question_targets (
     chat        TEXT NOT NULL,
     surface     TEXT NOT NULL,
     question_id TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     PRIMARY KEY (chat, surface, question_id)
   ) WITHOUT ROWID;
   INSERT OR IGNORE INTO question_targets (chat, surface, question_id)
     SELECT json_extract(t.value, '$.chat'), json_extract(t.value, '$.surface'), q.id
     FROM questions q,
          json_each(CASE WHEN json_valid(q.targets_json) AND json_type(q.targets_json) = 'array' THEN q.targets_json ELSE '[]' END) t
     WHERE json_type(t.value) = 'object' AND json_type(t.value, '$.chat') = 'text' AND json_type(t.value, '$.surface') = 'text';`,
  // The scoped agent credential that asked, for its pending-question quota (ASK_MAX_PENDING_PER_CREDENTIAL).
  `ALTER TABLE questions ADD COLUMN asked_by TEXT;
   CREATE INDEX questions_pending_asked_by ON questions (asked_by) WHERE status = 'pending' AND asked_by IS NOT NULL;`,
  // What each delivered copy shows now (question.copyRendered); each chat target's delivery trouble (retrying or
  // failed, with the bot's reason); and the platform messages already taken as replies (surface, chat, message id).
  `ALTER TABLE deliveries ADD COLUMN rendered TEXT;
   CREATE TABLE target_states (
     question_id TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     surface     TEXT NOT NULL,
     chat        TEXT NOT NULL,
     state       TEXT NOT NULL CHECK (state IN ('retrying', 'failed')),
     reason      TEXT NOT NULL,
     at_ms       INTEGER NOT NULL,
     retry_at_ms INTEGER,
     PRIMARY KEY (question_id, surface, chat)
   );
   CREATE TABLE reply_keys (
     surface     TEXT NOT NULL,
     chat        TEXT NOT NULL,
     message_ref TEXT NOT NULL,
     seen_at_ms  INTEGER NOT NULL,
     PRIMARY KEY (surface, chat, message_ref)
   ) WITHOUT ROWID;
   CREATE INDEX reply_keys_by_seen ON reply_keys (seen_at_ms);`,
  // Issue 20, when nobody answers: the follow-up policy (reminders, escalation steps) and what followed up so far
  // (reminders fired or skipped, steps taken, the bots' reminder messages), a pending record's next follow-up moment,
  // the late-answer window (its length, and its end once expired) and the late answer. Old rows: no follow-ups.
  `ALTER TABLE questions ADD COLUMN policy_json TEXT;
   ALTER TABLE questions ADD COLUMN progress_json TEXT;
   ALTER TABLE questions ADD COLUMN next_due_ms INTEGER;
   ALTER TABLE questions ADD COLUMN late_answer_seconds INTEGER;
   ALTER TABLE questions ADD COLUMN late_until_ms INTEGER;
   ALTER TABLE questions ADD COLUMN late_json TEXT;
   CREATE INDEX questions_pending_next_due ON questions (next_due_ms) WHERE status = 'pending' AND next_due_ms IS NOT NULL;
   CREATE INDEX questions_late_window ON questions (late_until_ms) WHERE late_until_ms IS NOT NULL AND late_json IS NULL;
   CREATE INDEX questions_late_answered ON questions (created_at_ms DESC, id DESC) WHERE late_json IS NOT NULL;`,
  // Issue 24, quotas and sessions per credential: a create counts its credential's pending records, and those in its
  // run (runs are per credential), in one index; a session's pending record is looked up by (sessionKey, askedBy).
  `DROP INDEX questions_pending_asked_by;
   CREATE INDEX questions_pending_asked_by_run ON questions (asked_by, run_id) WHERE status = 'pending' AND asked_by IS NOT NULL;
   CREATE INDEX questions_pending_session ON questions (session_key, asked_by) WHERE status = 'pending' AND session_key IS NOT NULL;`,
  // Issue 30, Control UI sessions in the store (see SESSIONS_TABLE_SQL; the credential store creates it too).
  `${SESSIONS_TABLE_SQL};`,
  // Issue 29, answer links: secrets the gateway makes once and keeps (the links' signing key), by name.
  `CREATE TABLE secrets (
     name          TEXT PRIMARY KEY NOT NULL,
     value         BLOB NOT NULL,
     created_at_ms INTEGER NOT NULL
   );`,
  // Issue 29 §4, webhooks: the outbox, one message per (event, URL), written in the commit of the resolution or late
  // answer. `due_at_ms` is the next try, or while a sender holds it its lease's end; NULL once sent or given up.
  `CREATE TABLE webhook_outbox (
     id             TEXT PRIMARY KEY NOT NULL,
     question_id    TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     event          TEXT NOT NULL,
     url            TEXT NOT NULL,
     record_json    TEXT NOT NULL,
     event_at_ms    INTEGER NOT NULL,
     attempts       INTEGER NOT NULL DEFAULT 0,
     due_at_ms      INTEGER,
     claimant       TEXT,
     last_error     TEXT,
     sent_at_ms     INTEGER,
     given_up_at_ms INTEGER
   );
   CREATE INDEX webhook_outbox_due ON webhook_outbox (due_at_ms) WHERE due_at_ms IS NOT NULL;
   CREATE INDEX webhook_outbox_by_question ON webhook_outbox (question_id);
   CREATE INDEX webhook_outbox_done ON webhook_outbox (COALESCE(sent_at_ms, given_up_at_ms)) WHERE due_at_ms IS NULL;`,
  // Issue 30, a chat target with no bot connected: target_states.state may be 'waiting' too. SQLite cannot change a
  // CHECK in place, so the table is rebuilt (same columns, rows copied) within this migration's transaction.
  `CREATE TABLE target_states_next (
     question_id TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     surface     TEXT NOT NULL,
     chat        TEXT NOT NULL,
     state       TEXT NOT NULL CHECK (state IN ('retrying', 'failed', 'waiting')),
     reason      TEXT NOT NULL,
     at_ms       INTEGER NOT NULL,
     retry_at_ms INTEGER,
     PRIMARY KEY (question_id, surface, chat)
   );
   INSERT INTO target_states_next (question_id, surface, chat, state, reason, at_ms, retry_at_ms)
     SELECT question_id, surface, chat, state, reason, at_ms, retry_at_ms FROM target_states;
   DROP TABLE target_states;
   ALTER TABLE target_states_next RENAME TO target_states;`,
];

export function applySqlitePragmas(db: Database.Database): void {
  for (const pragma of SQLITE_PRAGMAS) db.pragma(pragma);
  const mode = db.pragma("journal_mode", { simple: true });
  if (mode !== "wal") throw new Error(`SQLite refused WAL mode (journal_mode is ${String(mode)})`);
}

/** Brings the schema up to date. Each step re-reads the version under the write lock, so two openers don't race. */
export function migrateSqlite(db: Database.Database): void {
  const readVersion = (): number => db.pragma("user_version", { simple: true }) as number;
  const step = db.transaction((): boolean => {
    const version = readVersion();
    if (version > SQLITE_MIGRATIONS.length) {
      throw new Error(
        `the database has schema version ${version}, newer than this build knows (${SQLITE_MIGRATIONS.length})`,
      );
    }
    const migration = SQLITE_MIGRATIONS[version];
    if (migration === undefined) return false;
    db.exec(migration);
    db.pragma(`user_version = ${version + 1}`);
    return true;
  });
  while (step.immediate()) {
    // one migration per transaction
  }
}

/** Opens `<dataDir>/ask-user-bridge.sqlite`, creating the directory, with the pragmas and the current schema. */
export function openSqliteDatabase(dataDir: string): Database.Database {
  preparePrivateDir(dataDir);
  const file = path.join(dataDir, SQLITE_FILE_NAME);
  // Owner-only before SQLite opens it: its -wal and -shm files then get the same mode.
  restrictFile(file);
  const db = new Database(file);
  try {
    applySqlitePragmas(db);
    migrateSqlite(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** `ask-user-bridge migrate` for SQLite: opens (creating if needed) the database under `dataDir` and migrates it. */
export function migrateSqliteDataDir(dataDir: string): { file: string; from: number; to: number } {
  const file = path.join(dataDir, SQLITE_FILE_NAME);
  preparePrivateDir(dataDir);
  restrictFile(file);
  const db = new Database(file);
  try {
    const from = db.pragma("user_version", { simple: true }) as number;
    applySqlitePragmas(db);
    migrateSqlite(db);
    return { file, from, to: db.pragma("user_version", { simple: true }) as number };
  } finally {
    db.close();
  }
}
