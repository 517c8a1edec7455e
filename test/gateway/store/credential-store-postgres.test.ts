/**
 * The credential-store contract (test/gateway/store/credential-store-contract.ts) against PostgreSQL, opened as the gateway
 * opens it (openStores, the question store beside it); another store on the same database is another gateway
 * instance's. One database for this file.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { CREDENTIALS_TABLE, SESSIONS_TABLE } from "../../../src/gateway/store/kit/credentials-table.ts";
import { openStores, type Stores, type StoresConfig } from "../../../src/gateway/store/open-stores.ts";
import { connectWhenReady, createTestDatabase, type TestDatabase } from "../../helpers/postgres.ts";
import { runCredentialStoreContract } from "./credential-store-contract.ts";

let db: TestDatabase;
let admin: pg.Client;
let dataDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  admin = await connectWhenReady(db.url);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "aub-credentials-pg-"));
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await db?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

runCredentialStoreContract("postgres", async () => {
  const config: StoresConfig = { DATABASE_URL: db.url, STORE: "sqlite", DATA_DIR: dataDir };
  const opened: Stores[] = [];
  const open = async () => {
    const stores = await openStores(config, () => undefined);
    opened.push(stores);
    return stores.credentials;
  };
  return {
    store: await open(),
    reopen: async () => {
      await opened[0]?.close();
      return open();
    },
    openAnother: open,
    cleanup: async () => {
      await Promise.all(opened.map((stores) => stores.close().catch(() => undefined)));
      await admin.query(`TRUNCATE ${CREDENTIALS_TABLE}, ${SESSIONS_TABLE}`);
    },
  };
});
