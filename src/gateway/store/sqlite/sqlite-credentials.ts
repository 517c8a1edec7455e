import path from "node:path";
import { preparePrivateDir, restrictFile } from "../../../runtime/data-dir.ts";
import {
  CREDENTIALS_TABLE as TABLE,
  CREDENTIALS_TABLE_SQL,
  findSessionsSql,
  rowsByHash,
  rowsToSessions,
  rowToCredential,
  sessionValues,
  SESSIONS_TABLE,
  SESSIONS_TABLE_SQL,
  type CredentialRow,
  type SessionRow,
} from "../kit/credentials-table.ts";
import type { CredentialStore } from "../kit/credentials.ts";
import { SQLITE_FILE_NAME } from "./sqlite-file.ts";

/** Credentials in the gateway's SQLite file, on a connection of their own (WAL lets several connections share it). */
export async function createSqliteCredentialStore(dataDir: string): Promise<CredentialStore> {
  const { default: Database } = await import("better-sqlite3");
  preparePrivateDir(dataDir);
  const dbFile = path.join(dataDir, SQLITE_FILE_NAME);
  restrictFile(dbFile);
  const db = new Database(dbFile);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.exec(CREDENTIALS_TABLE_SQL);
  db.exec(SESSIONS_TABLE_SQL);
  const sql = {
    add: db.prepare(`INSERT INTO ${TABLE} (id, name, role, token_hash, created_at_ms) VALUES (?, ?, ?, ?, ?)`),
    find: db.prepare<[string], CredentialRow>(`SELECT * FROM ${TABLE} WHERE token_hash IN (SELECT value FROM json_each(?))`),
    list: db.prepare<[], CredentialRow>(`SELECT * FROM ${TABLE} ORDER BY created_at_ms, id`),
    revoke: db.prepare<[number, string, string], CredentialRow>(
      `UPDATE ${TABLE} SET revoked_at_ms = ? WHERE revoked_at_ms IS NULL AND (id = ? OR name = ?) RETURNING *`,
    ),
    endSessionsOf: db.prepare<[string]>(`DELETE FROM ${SESSIONS_TABLE} WHERE credential_id IN (SELECT value FROM json_each(?))`),
    addSession: db.prepare<[string, string | null, string | null, number, number]>(
      `INSERT INTO ${SESSIONS_TABLE} (id_hash, credential_id, admin_tag, created_at_ms, last_used_at_ms) VALUES (?, ?, ?, ?, ?)`,
    ),
    findSessions: db.prepare<[string], SessionRow>(findSessionsSql("s.id_hash IN (SELECT value FROM json_each(?))")),
    touchSession: db.prepare<[number, string, number]>(`UPDATE ${SESSIONS_TABLE} SET last_used_at_ms = ? WHERE id_hash = ? AND last_used_at_ms < ?`),
    deleteSession: db.prepare<[string]>(`DELETE FROM ${SESSIONS_TABLE} WHERE id_hash = ?`),
    pruneSessions: db.prepare<[number, number]>(`DELETE FROM ${SESSIONS_TABLE} WHERE last_used_at_ms <= ? OR created_at_ms <= ?`),
  };
  const revoke = db.transaction((idOrName: string, nowMs: number) => {
    const revoked = sql.revoke.all(nowMs, idOrName, idOrName).map(rowToCredential);
    if (revoked.length > 0) sql.endSessionsOf.run(JSON.stringify(revoked.map((c) => c.id)));
    return revoked;
  });
  return {
    async add(c, tokenHash) {
      sql.add.run(c.id, c.name, c.role, tokenHash, c.createdAtMs);
    },
    async findByHashes(tokenHashes) {
      return rowsByHash(sql.find.all(JSON.stringify(tokenHashes)));
    },
    async list() {
      return sql.list.all().map(rowToCredential);
    },
    async revoke(idOrName, nowMs) {
      return revoke.immediate(idOrName, nowMs);
    },
    sessions: {
      async add(idHash, session) {
        sql.addSession.run(...sessionValues(idHash, session));
      },
      async find(idHashes) {
        return rowsToSessions(sql.findSessions.all(JSON.stringify(idHashes)));
      },
      async touch(idHash, lastUsedAtMs) {
        sql.touchSession.run(lastUsedAtMs, idHash, lastUsedAtMs);
      },
      async delete(idHash) {
        sql.deleteSession.run(idHash);
      },
      async prune(idleBeforeMs, createdBeforeMs) {
        return sql.pruneSessions.run(idleBeforeMs, createdBeforeMs).changes;
      },
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
