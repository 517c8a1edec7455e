/**
 * The one store contract suite (test/gateway/store/store-contract.ts) against PostgreSQL: the same cases as memory and SQLite, plus
 * the cases only a shared store has (several instances on one database). One database for this file.
 */
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { runPostgresMigrations } from "../../../src/gateway/store/postgres/postgres-schema.ts";
import { createPostgresStore } from "../../../src/gateway/store/postgres/postgres-store.ts";
import type { QuestionStore } from "../../../src/gateway/store/kit/types.ts";
import { connectWhenReady, createTestDatabase, type TestDatabase } from "../../helpers/postgres.ts";
import { runStoreContract } from "./store-contract.ts";

let db: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  await runPostgresMigrations(db.url);
  admin = await connectWhenReady(db.url);
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await db?.drop();
});

runStoreContract("postgres", async (options) => {
  const open = () => createPostgresStore({ connectionString: db.url, log: () => undefined, ...options });
  const stores: QuestionStore[] = [];
  const opened = async () => {
    const store = await open();
    stores.push(store);
    return store;
  };
  return {
    store: await opened(),
    reopen: async () => {
      await stores[0]?.close();
      return opened();
    },
    openAnother: opened,
    cleanup: async () => {
      await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
      await admin.query("TRUNCATE questions CASCADE");
    },
  };
});
