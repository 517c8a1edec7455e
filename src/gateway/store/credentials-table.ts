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
