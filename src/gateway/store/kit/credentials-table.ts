import type { Credential, FoundSession, Role, StoredSession } from "./credentials.ts";

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

/**
 * The Control UI's sessions, the same in SQLite and PostgreSQL (each creates it in a versioned migration; SQLite's
 * credential store also creates it, as it does its own table, so `token revoke` works before a gateway ran).
 * `id_hash` is the SHA-256 of the session id; `credential_id` is NULL for the admin's sessions, which carry
 * `admin_tag` instead (a fingerprint of the GATEWAY_TOKEN they signed in with, so a new token ends them).
 */
export const SESSIONS_TABLE = "ask_user_bridge_sessions";
export const SESSIONS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS ${SESSIONS_TABLE} (
  id_hash         TEXT PRIMARY KEY NOT NULL,
  credential_id   TEXT,
  admin_tag       TEXT,
  created_at_ms   BIGINT NOT NULL,
  last_used_at_ms BIGINT NOT NULL,
  CHECK ((credential_id IS NULL) <> (admin_tag IS NULL))
);
CREATE INDEX IF NOT EXISTS ${SESSIONS_TABLE}_credential ON ${SESSIONS_TABLE} (credential_id);
CREATE INDEX IF NOT EXISTS ${SESSIONS_TABLE}_last_used ON ${SESSIONS_TABLE} (last_used_at_ms);
CREATE INDEX IF NOT EXISTS ${SESSIONS_TABLE}_created ON ${SESSIONS_TABLE} (created_at_ms)`;

/** `find`'s query from a WHERE clause on `s.id_hash`: each session with its credential (LEFT JOIN: it may be gone). */
export const findSessionsSql = (idHashCondition: string) => `SELECT s.id_hash, s.credential_id, s.admin_tag, s.created_at_ms, s.last_used_at_ms,
  c.id, c.name, c.role, c.token_hash, c.created_at_ms AS c_created_at_ms, c.revoked_at_ms
  FROM ${SESSIONS_TABLE} s LEFT JOIN ${CREDENTIALS_TABLE} c ON c.id = s.credential_id WHERE ${idHashCondition}`;

/** A row of `findSessionsSql`, as either driver returns it. */
export type SessionRow = {
  id_hash: string;
  credential_id: string | null;
  admin_tag: string | null;
  created_at_ms: number | string;
  last_used_at_ms: number | string;
  id: string | null;
  name: string | null;
  role: Role | null;
  token_hash: string | null;
  c_created_at_ms: number | string | null;
  revoked_at_ms: number | string | null;
};

/** `find`'s answer from the rows found. */
export function rowsToSessions(rows: SessionRow[]): Map<string, FoundSession> {
  const found = new Map<string, FoundSession>();
  for (const row of rows) {
    const times = { createdAtMs: Number(row.created_at_ms), lastUsedAtMs: Number(row.last_used_at_ms) };
    if (row.credential_id === null) {
      found.set(row.id_hash, { who: { kind: "admin", tag: row.admin_tag ?? "" }, ...times });
      continue;
    }
    const credential =
      row.id === null
        ? undefined
        : {
            ...rowToCredential({ id: row.id, name: row.name!, role: row.role!, token_hash: row.token_hash!, created_at_ms: row.c_created_at_ms!, revoked_at_ms: row.revoked_at_ms }),
            tokenHash: row.token_hash!,
          };
    found.set(row.id_hash, { who: { kind: "credential", credentialId: row.credential_id }, ...times, ...(credential ? { credential } : {}) });
  }
  return found;
}

/** `add`'s column values: [id_hash, credential_id, admin_tag, created_at_ms, last_used_at_ms]. */
export const sessionValues = (idHash: string, s: StoredSession): [string, string | null, string | null, number, number] => [
  idHash,
  s.who.kind === "credential" ? s.who.credentialId : null,
  s.who.kind === "admin" ? s.who.tag : null,
  s.createdAtMs,
  s.lastUsedAtMs,
];
