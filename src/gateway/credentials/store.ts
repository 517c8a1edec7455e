import path from "node:path";
import { preparePrivateDir, restrictFile } from "../../data-dir.ts";
import { SQLITE_FILE_NAME } from "../store/sqlite-schema.ts";
import type { Role } from "./principal.ts";
import { CREDENTIALS_TABLE, CREDENTIALS_TABLE_SQL } from "../store/credentials-table.ts";

/** A scoped credential as `token list` shows it; the token itself is never stored, only its hash. */
export interface Credential {
  id: string;
  name: string;
  role: Role;
  createdAtMs: number;
  revokedAtMs?: number;
}

/**
 * Where scoped credentials live: the same database as the questions (its own table), so every gateway instance on
 * one PostgreSQL database knows the same credentials, and the CLI manages them without a running gateway.
 */
export interface CredentialStore {
  add(credential: Credential, tokenHash: string): Promise<void>;
  /**
   * The credentials with these token hashes, revoked ones included (a revoked credential is refused, but it is not a
   * wrong guess), keyed by hash. One round trip, so open connections are re-checked in a batch.
   */
  findByHashes(tokenHashes: readonly string[]): Promise<Map<string, Credential>>;
  list(): Promise<Credential[]>;
  /** Revokes by id or by name (every live credential of that name); returns what it revoked. */
  revoke(idOrName: string, nowMs: number): Promise<Credential[]>;
  close(): Promise<void>;
}

type Row = { id: string; name: string; role: Role; token_hash: string; created_at_ms: number | string; revoked_at_ms: number | string | null };
const rowToCredential = (row: Row): Credential => ({
  id: row.id,
  name: row.name,
  role: row.role,
  createdAtMs: Number(row.created_at_ms),
  ...(row.revoked_at_ms === null ? {} : { revokedAtMs: Number(row.revoked_at_ms) }),
});

const byHash = (rows: Row[]) => new Map(rows.map((row) => [row.token_hash, rowToCredential(row)]));

const TABLE = CREDENTIALS_TABLE;

export function createMemoryCredentialStore(): CredentialStore {
  const rows = new Map<string, { credential: Credential; hash: string }>();
  const live = (c: Credential) => c.revokedAtMs === undefined;
  return {
    async add(credential, tokenHash) {
      rows.set(credential.id, { credential: { ...credential }, hash: tokenHash });
    },
    async findByHashes(tokenHashes) {
      const wanted = new Set(tokenHashes);
      const found = new Map<string, Credential>();
      for (const { credential, hash } of rows.values()) if (wanted.has(hash)) found.set(hash, { ...credential });
      return found;
    },
    async list() {
      return [...rows.values()].map(({ credential }) => ({ ...credential }));
    },
    async revoke(idOrName, nowMs) {
      const revoked: Credential[] = [];
      for (const row of rows.values()) {
        if (live(row.credential) && (row.credential.id === idOrName || row.credential.name === idOrName)) {
          row.credential.revokedAtMs = nowMs;
          revoked.push({ ...row.credential });
        }
      }
      return revoked;
    },
    async close() {},
  };
}

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
    find: db.prepare<[string], Row>(`SELECT * FROM ${TABLE} WHERE token_hash IN (SELECT value FROM json_each(?))`),
    list: db.prepare<[], Row>(`SELECT * FROM ${TABLE} ORDER BY created_at_ms, id`),
    revoke: db.prepare<[number, string, string], Row>(
      `UPDATE ${TABLE} SET revoked_at_ms = ? WHERE revoked_at_ms IS NULL AND (id = ? OR name = ?) RETURNING *`,
    ),
  };
  return {
    async add(c, tokenHash) {
      sql.add.run(c.id, c.name, c.role, tokenHash, c.createdAtMs);
    },
    async findByHashes(tokenHashes) {
      return byHash(sql.find.all(JSON.stringify(tokenHashes)));
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

/** Credentials in the shared PostgreSQL database, on a small pool of their own. */
export async function createPostgresCredentialStore(connectionString: string): Promise<CredentialStore> {
  const [{ default: pg }, { runPostgresMigrations }] = await Promise.all([import("pg"), import("../store/postgres-schema.ts")]);
  const pool = new pg.Pool({ connectionString, max: 2, connectionTimeoutMillis: 5_000, application_name: "ask-user-bridge credentials" });
  pool.on("error", () => undefined); // an idle connection lost: the pool makes a new one when asked
  // The table comes with the schema migrations (run by every gateway at start-up, and by `migrate`).
  await runPostgresMigrations(connectionString);
  return {
    async add(c, tokenHash) {
      await pool.query(`INSERT INTO ${TABLE} (id, name, role, token_hash, created_at_ms) VALUES ($1, $2, $3, $4, $5)`, [c.id, c.name, c.role, tokenHash, c.createdAtMs]);
    },
    async findByHashes(tokenHashes) {
      return byHash((await pool.query<Row>(`SELECT * FROM ${TABLE} WHERE token_hash = ANY($1::text[])`, [tokenHashes])).rows);
    },
    async list() {
      return (await pool.query<Row>(`SELECT * FROM ${TABLE} ORDER BY created_at_ms, id`)).rows.map(rowToCredential);
    },
    async revoke(idOrName, nowMs) {
      const { rows } = await pool.query<Row>(
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

/** The credential store beside the question store the configuration picks. */
export function openCredentialStore(config: { DATABASE_URL?: string | undefined; STORE: "sqlite" | "memory"; DATA_DIR: string }): Promise<CredentialStore> {
  if (config.DATABASE_URL) return createPostgresCredentialStore(config.DATABASE_URL);
  if (config.STORE === "memory") return Promise.resolve(createMemoryCredentialStore());
  return createSqliteCredentialStore(config.DATA_DIR);
}
