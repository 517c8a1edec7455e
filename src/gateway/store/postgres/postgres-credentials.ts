import {
  CREDENTIALS_TABLE as TABLE,
  findSessionsSql,
  rowsByHash,
  rowsToSessions,
  rowToCredential,
  sessionValues,
  SESSIONS_TABLE,
  type CredentialRow,
  type SessionRow,
} from "../kit/credentials-table.ts";
import type { CredentialStore } from "../kit/credentials.ts";

/** Credentials in the shared PostgreSQL database, on a small pool of their own. */
export async function createPostgresCredentialStore(connectionString: string): Promise<CredentialStore> {
  const [{ default: pg }, { runPostgresMigrations }] = await Promise.all([import("pg"), import("./postgres-schema.ts")]);
  const pool = new pg.Pool({ connectionString, max: 2, connectionTimeoutMillis: 5_000, application_name: "ask-user-bridge credentials" });
  pool.on("error", () => undefined); // an idle connection lost: the pool makes a new one when asked
  // The table comes with the schema migrations (run by every gateway at start-up, and by `migrate`).
  await runPostgresMigrations(connectionString);
  return {
    async add(c, tokenHash) {
      await pool.query(`INSERT INTO ${TABLE} (id, name, role, token_hash, created_at_ms) VALUES ($1, $2, $3, $4, $5)`, [c.id, c.name, c.role, tokenHash, c.createdAtMs]);
    },
    async findByHashes(tokenHashes) {
      return rowsByHash((await pool.query<CredentialRow>(`SELECT * FROM ${TABLE} WHERE token_hash = ANY($1::text[])`, [tokenHashes])).rows);
    },
    async list() {
      return (await pool.query<CredentialRow>(`SELECT * FROM ${TABLE} ORDER BY created_at_ms, id`)).rows.map(rowToCredential);
    },
    async revoke(idOrName, nowMs) {
      // One statement: the credentials are revoked and their sessions ended together.
      const { rows } = await pool.query<CredentialRow>(
        `WITH revoked AS (
           UPDATE ${TABLE} SET revoked_at_ms = $1 WHERE revoked_at_ms IS NULL AND (id = $2 OR name = $2) RETURNING *
         ), ended AS (
           DELETE FROM ${SESSIONS_TABLE} WHERE credential_id IN (SELECT id FROM revoked)
         )
         SELECT * FROM revoked`,
        [nowMs, idOrName],
      );
      return rows.map(rowToCredential);
    },
    sessions: {
      async add(idHash, session) {
        await pool.query(
          `INSERT INTO ${SESSIONS_TABLE} (id_hash, credential_id, admin_tag, created_at_ms, last_used_at_ms) VALUES ($1, $2, $3, $4, $5)`,
          sessionValues(idHash, session),
        );
      },
      async find(idHashes) {
        return rowsToSessions((await pool.query<SessionRow>(findSessionsSql("s.id_hash = ANY($1::text[])"), [idHashes])).rows);
      },
      async touch(idHash, lastUsedAtMs) {
        await pool.query(`UPDATE ${SESSIONS_TABLE} SET last_used_at_ms = $1 WHERE id_hash = $2 AND last_used_at_ms < $1`, [lastUsedAtMs, idHash]);
      },
      async delete(idHash) {
        await pool.query(`DELETE FROM ${SESSIONS_TABLE} WHERE id_hash = $1`, [idHash]);
      },
      async prune(idleBeforeMs, createdBeforeMs) {
        const { rowCount } = await pool.query(`DELETE FROM ${SESSIONS_TABLE} WHERE last_used_at_ms <= $1 OR created_at_ms <= $2`, [idleBeforeMs, createdBeforeMs]);
        return rowCount ?? 0;
      },
    },
    async close() {
      await pool.end();
    },
  };
}
