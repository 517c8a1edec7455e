import path from "node:path";
import { preparePrivateDir, restrictFile } from "../../../runtime/data-dir.ts";
import { CREDENTIALS_TABLE as TABLE, CREDENTIALS_TABLE_SQL, rowsByHash, rowToCredential, type CredentialRow } from "../kit/credentials-table.ts";
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
  const sql = {
    add: db.prepare(`INSERT INTO ${TABLE} (id, name, role, token_hash, created_at_ms) VALUES (?, ?, ?, ?, ?)`),
    find: db.prepare<[string], CredentialRow>(`SELECT * FROM ${TABLE} WHERE token_hash IN (SELECT value FROM json_each(?))`),
    list: db.prepare<[], CredentialRow>(`SELECT * FROM ${TABLE} ORDER BY created_at_ms, id`),
    revoke: db.prepare<[number, string, string], CredentialRow>(
      `UPDATE ${TABLE} SET revoked_at_ms = ? WHERE revoked_at_ms IS NULL AND (id = ? OR name = ?) RETURNING *`,
    ),
  };
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
      return sql.revoke.all(nowMs, idOrName, idOrName).map(rowToCredential);
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
