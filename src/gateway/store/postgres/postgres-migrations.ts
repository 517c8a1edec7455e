import { CREDENTIALS_TABLE_SQL } from "../kit/credentials-table.ts";
import { SESSIONS_TABLE_SQL } from "../kit/credentials-table.ts";

/** The NOTIFY channel every instance LISTENs on; the triggers below send one notification per committed change. */
export const POSTGRES_CHANNEL = "ask_user_bridge";

/**
 * Schema migrations: entry `i` is version `i + 1`. Append, never edit. Each runs in the same transaction as its
 * version row, so a failed migration leaves nothing behind.
 *
 * The JSON columns are `json`, which keeps the text exactly as written (object key order included) and refuses
 * invalid JSON; `partial_json` is `jsonb`, because partial replies are merged in SQL (`||`). Times are BIGINT ms.
 * The triggers notify `ask_user_bridge` with `{ event, id, origin }`, where `origin` is the writer's
 * `application_name` (its instance id): NOTIFY is sent iff the transaction commits, and each instance skips its own.
 * Since version 7 a notification also carries the record as `row` when it fits (see ask_user_bridge_change_payload).
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `CREATE TABLE questions (
     id              TEXT PRIMARY KEY,
     status          TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'expired', 'cancelled')),
     created_at_ms   BIGINT NOT NULL,
     expires_at_ms   BIGINT NOT NULL,
     resolved_at_ms  BIGINT,
     timeout_seconds BIGINT NOT NULL,
     run_id          TEXT,
     session_key     TEXT,
     surfaces        TEXT[] NOT NULL,
     reason          TEXT,
     detail          TEXT,
     questions_json  JSON NOT NULL,
     answers_json    JSON,
     by_json         JSON,
     targets_json    JSON NOT NULL,
     partial_json    JSONB
   );
   CREATE INDEX questions_by_created ON questions (created_at_ms DESC, id DESC);
   CREATE INDEX questions_pending_created ON questions (created_at_ms DESC, id DESC) WHERE status = 'pending';
   CREATE INDEX questions_by_run ON questions (run_id, created_at_ms DESC, id DESC) WHERE run_id IS NOT NULL;
   CREATE INDEX questions_by_session ON questions (session_key, created_at_ms DESC, id DESC) WHERE session_key IS NOT NULL;
   CREATE INDEX questions_pending_expiry ON questions (expires_at_ms, id) WHERE status = 'pending';
   CREATE INDEX questions_by_surface ON questions USING GIN (surfaces);
   -- One pending question per session, across every instance: a second pending insert fails (SessionBusyError).
   CREATE UNIQUE INDEX questions_pending_session ON questions (session_key) WHERE status = 'pending' AND session_key IS NOT NULL;

   CREATE TABLE deliveries (
     question_id     TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     surface         TEXT NOT NULL,
     chat            TEXT NOT NULL,
     message_ref     TEXT NOT NULL,
     delivered_at_ms BIGINT NOT NULL,
     seq             BIGINT GENERATED ALWAYS AS IDENTITY,
     PRIMARY KEY (question_id, surface, chat)
   );
   CREATE TABLE question_targets (
     chat        TEXT NOT NULL,
     surface     TEXT NOT NULL,
     question_id TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     PRIMARY KEY (chat, surface, question_id)
   );
   CREATE INDEX question_targets_by_question ON question_targets (question_id);
   CREATE TABLE delivery_claims (
     question_id    TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     surface        TEXT NOT NULL,
     chat           TEXT NOT NULL,
     claimant       TEXT NOT NULL,
     lease_until_ms BIGINT NOT NULL,
     PRIMARY KEY (question_id, surface, chat)
   );

   CREATE FUNCTION ask_user_bridge_notify_question() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     event text;
   BEGIN
     IF TG_OP = 'INSERT' THEN
       event := 'question.requested';
     ELSIF OLD.status = 'pending' AND NEW.status <> 'pending' THEN
       event := 'question.resolved';
     ELSIF NEW.partial_json IS DISTINCT FROM OLD.partial_json THEN
       event := 'question.updated';
     ELSE
       RETURN NULL;
     END IF;
     PERFORM pg_notify('${POSTGRES_CHANNEL}',
       json_build_object('event', event, 'id', NEW.id, 'origin', current_setting('application_name'))::text);
     RETURN NULL;
   END $$;
   CREATE TRIGGER questions_notify AFTER INSERT OR UPDATE ON questions
     FOR EACH ROW EXECUTE FUNCTION ask_user_bridge_notify_question();

   CREATE FUNCTION ask_user_bridge_notify_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     -- A delivery written by the transaction that created its question is part of that question.requested.
     IF EXISTS (SELECT 1 FROM questions
                WHERE id = NEW.question_id AND xmin::text = (pg_current_xact_id()::text::bigint % 4294967296)::text) THEN
       RETURN NULL;
     END IF;
     PERFORM pg_notify('${POSTGRES_CHANNEL}',
       json_build_object('event', 'question.updated', 'id', NEW.question_id, 'origin', current_setting('application_name'))::text);
     RETURN NULL;
   END $$;
   CREATE TRIGGER deliveries_notify AFTER INSERT ON deliveries
     FOR EACH ROW EXECUTE FUNCTION ask_user_bridge_notify_delivery();`,
  // Scoped credentials (ask-user-bridge token): the token's SHA-256 only. See src/gateway/store/kit/credentials.ts.
  `${CREDENTIALS_TABLE_SQL};`,
  // The scoped agent credential that asked, for its pending-question quota (ASK_MAX_PENDING_PER_CREDENTIAL).
  `ALTER TABLE questions ADD COLUMN asked_by TEXT;
   CREATE INDEX questions_pending_asked_by ON questions (asked_by) WHERE status = 'pending' AND asked_by IS NOT NULL;`,
  // What each delivered copy shows now (question.copyRendered); when a claim was last taken or renewed; each chat
  // target's delivery trouble (retrying or failed, with the bot's reason), announced as question.updated; and the
  // platform messages already taken as replies (surface, chat, message id), shared by every instance.
  `ALTER TABLE deliveries ADD COLUMN rendered TEXT;
   ALTER TABLE delivery_claims ADD COLUMN claimed_at_ms BIGINT;
   CREATE TABLE target_states (
     question_id TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     surface     TEXT NOT NULL,
     chat        TEXT NOT NULL,
     state       TEXT NOT NULL CHECK (state IN ('retrying', 'failed')),
     reason      TEXT NOT NULL,
     at_ms       BIGINT NOT NULL,
     retry_at_ms BIGINT,
     seq         BIGINT GENERATED ALWAYS AS IDENTITY,
     PRIMARY KEY (question_id, surface, chat)
   );
   CREATE TABLE reply_keys (
     surface     TEXT NOT NULL,
     chat        TEXT NOT NULL,
     message_ref TEXT NOT NULL,
     seen_at_ms  BIGINT NOT NULL,
     PRIMARY KEY (surface, chat, message_ref)
   );
   CREATE INDEX reply_keys_by_seen ON reply_keys (seen_at_ms);

   CREATE FUNCTION ask_user_bridge_notify_target_state() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${POSTGRES_CHANNEL}',
       json_build_object('event', 'question.updated', 'id', NEW.question_id, 'origin', current_setting('application_name'))::text);
     RETURN NULL;
   END $$;
   CREATE TRIGGER target_states_notify AFTER INSERT OR UPDATE ON target_states
     FOR EACH ROW EXECUTE FUNCTION ask_user_bridge_notify_target_state();`,
  // Issue 20, when nobody answers: the follow-up policy (reminders, escalation steps) and what followed up so far
  // (reminders fired or skipped, steps taken, the bots' reminder messages), a pending record's next follow-up moment,
  // the late-answer window (its length, and its end once expired) and the late answer. Follow-up writes are
  // compare-and-sets on `follow_version`, and each names the event it announces in `follow_event` (NULL: none, e.g.
  // a skipped reminder). Reminder messages are claimed per (question, surface, chat, offset) in reminder_claims.
  `ALTER TABLE questions
     ADD COLUMN policy_json JSON,
     ADD COLUMN progress_json JSON,
     ADD COLUMN next_due_ms BIGINT,
     ADD COLUMN late_answer_seconds BIGINT,
     ADD COLUMN late_until_ms BIGINT,
     ADD COLUMN late_json JSON,
     ADD COLUMN follow_version BIGINT NOT NULL DEFAULT 0,
     ADD COLUMN follow_event TEXT;
   CREATE INDEX questions_pending_next_due ON questions (next_due_ms, id) WHERE status = 'pending' AND next_due_ms IS NOT NULL;
   CREATE INDEX questions_late_window ON questions (late_until_ms, id) WHERE late_until_ms IS NOT NULL AND late_json IS NULL;
   CREATE INDEX questions_late_answered ON questions (created_at_ms DESC, id DESC) WHERE late_json IS NOT NULL;
   CREATE TABLE reminder_claims (
     question_id    TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     surface        TEXT NOT NULL,
     chat           TEXT NOT NULL,
     offset_seconds BIGINT NOT NULL,
     claimant       TEXT NOT NULL,
     lease_until_ms BIGINT NOT NULL,
     PRIMARY KEY (question_id, surface, chat, offset_seconds)
   );

   CREATE OR REPLACE FUNCTION ask_user_bridge_notify_question() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     event text;
   BEGIN
     IF TG_OP = 'INSERT' THEN
       event := 'question.requested';
     ELSIF OLD.status = 'pending' AND NEW.status <> 'pending' THEN
       event := 'question.resolved';
     ELSIF NEW.late_json IS NOT NULL AND OLD.late_json IS NULL THEN
       event := 'question.lateAnswered';
     ELSIF NEW.follow_version <> OLD.follow_version THEN
       event := NEW.follow_event;
       IF event IS NULL THEN
         RETURN NULL;
       END IF;
     ELSIF NEW.partial_json IS DISTINCT FROM OLD.partial_json THEN
       event := 'question.updated';
     ELSE
       RETURN NULL;
     END IF;
     PERFORM pg_notify('${POSTGRES_CHANNEL}',
       json_build_object('event', event, 'id', NEW.id, 'origin', current_setting('application_name'))::text);
     RETURN NULL;
   END $$;`,
  // Issue 24, sessions and quotas per credential. One pending question per (asker, session): the admin's records (no
  // asked_by) are a namespace of their own (credential ids are never empty). The index keeps its name, which is what
  // create maps to SessionBusyError, so an instance still on the previous build maps it too. The old rule (one per
  // session) was stricter, so no existing rows can break the new one. A create under quota counts its credential's
  // pending records, and those in its run, from one (asked_by, run_id) index, which also serves asked_by alone.
  `DROP INDEX questions_pending_session;
   CREATE UNIQUE INDEX questions_pending_session ON questions ((COALESCE(asked_by, '')), session_key)
     WHERE status = 'pending' AND session_key IS NOT NULL;
   DROP INDEX questions_pending_asked_by;
   CREATE INDEX questions_pending_asked_by_run ON questions (asked_by, run_id) WHERE status = 'pending' AND asked_by IS NOT NULL;`,
  // Issue 30, Control UI sessions in the store, so every instance knows a sign-in (see SESSIONS_TABLE_SQL).
  `${SESSIONS_TABLE_SQL};`,
  // Issue 29, answer links: secrets the gateway makes once and keeps (the links' signing key), by name; every
  // instance on the database reads the same one, so each verifies the others' links.
  `CREATE TABLE secrets (
     name          TEXT PRIMARY KEY,
     value         BYTEA NOT NULL,
     created_at_ms BIGINT NOT NULL
   );`,
  // Issue 29 §4, webhooks: the outbox, one message per (event, URL), written in the transaction of the resolution or
  // late answer. \`due_at_ms\` is the next try, or while a sender holds it its lease's end; NULL once sent or given up.
  // Senders claim with FOR UPDATE SKIP LOCKED, so each due message goes to one instance.
  `CREATE TABLE webhook_outbox (
     id             TEXT PRIMARY KEY,
     question_id    TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
     event          TEXT NOT NULL,
     url            TEXT NOT NULL,
     record_json    TEXT NOT NULL,
     event_at_ms    BIGINT NOT NULL,
     attempts       INTEGER NOT NULL DEFAULT 0,
     due_at_ms      BIGINT,
     claimant       TEXT,
     last_error     TEXT,
     sent_at_ms     BIGINT,
     given_up_at_ms BIGINT,
     seq            BIGINT GENERATED ALWAYS AS IDENTITY
   );
   CREATE INDEX webhook_outbox_due ON webhook_outbox (due_at_ms, seq) WHERE due_at_ms IS NOT NULL;
   CREATE INDEX webhook_outbox_by_question ON webhook_outbox (question_id);
   CREATE INDEX webhook_outbox_done ON webhook_outbox ((COALESCE(sent_at_ms, given_up_at_ms))) WHERE due_at_ms IS NULL;`,
  // Issue 30, scale-out: each notification carries the record as the store reads it (READ_RECORD's columns, JSON
  // columns as text), so the other instances follow a change without reading it again. NOTIFY takes at most 8000
  // bytes: a larger record is announced as before, `{origin, event, id}`, and read. `origin` comes first, so an
  // instance recognises its own notifications by their first characters.
  `CREATE FUNCTION ask_user_bridge_change_payload(event text, changed_id text) RETURNS text LANGUAGE plpgsql AS $$
   DECLARE
     head text := json_build_object('origin', current_setting('application_name'), 'event', event, 'id', changed_id)::text;
     body text;
   BEGIN
     SELECT json_build_object(
       'id', q.id, 'status', q.status, 'created_at_ms', q.created_at_ms, 'expires_at_ms', q.expires_at_ms,
       'resolved_at_ms', q.resolved_at_ms, 'timeout_seconds', q.timeout_seconds, 'run_id', q.run_id,
       'session_key', q.session_key, 'reason', q.reason, 'detail', q.detail,
       'questions_json', q.questions_json::text, 'answers_json', q.answers_json::text, 'by_json', q.by_json::text,
       'targets_json', q.targets_json::text, 'partial_json', q.partial_json::text, 'asked_by', q.asked_by,
       'policy_json', q.policy_json::text, 'progress_json', q.progress_json::text,
       'late_answer_seconds', q.late_answer_seconds, 'late_until_ms', q.late_until_ms, 'late_json', q.late_json::text,
       'deliveries_json', (SELECT COALESCE(json_agg(json_build_array(d.surface, d.chat, d.message_ref, d.delivered_at_ms, d.rendered) ORDER BY d.seq), '[]')::text
                           FROM deliveries d WHERE d.question_id = q.id),
       'states_json', (SELECT json_agg(json_build_array(s.surface, s.chat, s.state, s.reason, s.at_ms, s.retry_at_ms) ORDER BY s.seq)::text
                       FROM target_states s WHERE s.question_id = q.id
                         AND NOT EXISTS (SELECT 1 FROM deliveries sd WHERE sd.question_id = s.question_id AND sd.surface = s.surface AND sd.chat = s.chat))
     )::text INTO body
     FROM questions q WHERE q.id = changed_id;
     -- The joined text is head without its "}", ', "row" : ' (10 bytes), body and "}".
     IF body IS NULL OR octet_length(head) + 10 + octet_length(body) > 7999 THEN
       RETURN head;
     END IF;
     RETURN left(head, -1) || ', "row" : ' || body || '}';
   END $$;

   CREATE OR REPLACE FUNCTION ask_user_bridge_notify_question() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     event text;
   BEGIN
     IF TG_OP = 'INSERT' THEN
       event := 'question.requested';
     ELSIF OLD.status = 'pending' AND NEW.status <> 'pending' THEN
       event := 'question.resolved';
     ELSIF NEW.late_json IS NOT NULL AND OLD.late_json IS NULL THEN
       event := 'question.lateAnswered';
     ELSIF NEW.follow_version <> OLD.follow_version THEN
       event := NEW.follow_event;
       IF event IS NULL THEN
         RETURN NULL;
       END IF;
     ELSIF NEW.partial_json IS DISTINCT FROM OLD.partial_json THEN
       event := 'question.updated';
     ELSE
       RETURN NULL;
     END IF;
     PERFORM pg_notify('${POSTGRES_CHANNEL}', ask_user_bridge_change_payload(event, NEW.id));
     RETURN NULL;
   END $$;

   CREATE OR REPLACE FUNCTION ask_user_bridge_notify_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     -- A delivery written by the transaction that created its question is part of that question.requested.
     IF EXISTS (SELECT 1 FROM questions
                WHERE id = NEW.question_id AND xmin::text = (pg_current_xact_id()::text::bigint % 4294967296)::text) THEN
       RETURN NULL;
     END IF;
     PERFORM pg_notify('${POSTGRES_CHANNEL}', ask_user_bridge_change_payload('question.updated', NEW.question_id));
     RETURN NULL;
   END $$;

   CREATE OR REPLACE FUNCTION ask_user_bridge_notify_target_state() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${POSTGRES_CHANNEL}', ask_user_bridge_change_payload('question.updated', NEW.question_id));
     RETURN NULL;
   END $$;`,
  // Issue 30, a chat target with no bot connected: target_states.state may be 'waiting' too; and which chat
  // surfaces have a bot connected to which instance, each row refreshed while it stays connected (the database's
  // clock, so instances' clocks need not agree), so "no bot is connected" means to none of the instances.
  `ALTER TABLE target_states DROP CONSTRAINT target_states_state_check,
     ADD CONSTRAINT target_states_state_check CHECK (state IN ('retrying', 'failed', 'waiting'));
   CREATE TABLE bot_presence (
     instance TEXT NOT NULL,
     surface  TEXT NOT NULL,
     seen_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
     PRIMARY KEY (instance, surface)
   );`,
];
