import { CREDENTIALS_TABLE as TABLE, rowsByHash, rowToCredential, type CredentialRow } from "../kit/credentials-table.ts";
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
      const { rows } = await pool.query<CredentialRow>(
        `UPDATE ${TABLE} SET revoked_at_ms = $1 WHERE revoked_at_ms IS NULL AND (id = $2 OR name = $2) RETURNING *`,
        [nowMs, idOrName],
      );
      return rows.map(rowToCredential);
    },
    async close() {
      await pool.end();
    },
  };
}
