import type { Credential, Role } from "./credentials.ts";

/** The scoped-credentials table, the same in SQLite and PostgreSQL (PostgreSQL creates it in a versioned migration). */
export const CREDENTIALS_TABLE = "ask_user_bridge_credentials";
export const CREDENTIALS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS ${CREDENTIALS_TABLE} (
  id            TEXT PRIMARY KEY NOT NULL,
  name          TEXT NOT NULL,
  role          TEXT NOT NULL,
  token_hash    TEXT NOT NULL UNIQUE,
  created_at_ms BIGINT NOT NULL,
  revoked_at_ms BIGINT
)`;

/** A row of the table as either driver returns it (pg gives BIGINT as a string). */
export type CredentialRow = { id: string; name: string; role: Role; token_hash: string; created_at_ms: number | string; revoked_at_ms: number | string | null };

export const rowToCredential = (row: CredentialRow): Credential => ({
  id: row.id,
  name: row.name,
  role: row.role,
  createdAtMs: Number(row.created_at_ms),
  ...(row.revoked_at_ms === null ? {} : { revokedAtMs: Number(row.revoked_at_ms) }),
});

/** `findByHashes`'s answer from the rows found. */
export const rowsByHash = (rows: CredentialRow[]): Map<string, Credential> => new Map(rows.map((row) => [row.token_hash, rowToCredential(row)]));
