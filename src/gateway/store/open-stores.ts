import type { CredentialStore } from "./kit/credentials.ts";
import type { QuestionStore } from "./kit/types.ts";

/** What picks the backend: PostgreSQL when DATABASE_URL is set, else SQLite under DATA_DIR, or memory. */
export interface StoresConfig {
  DATABASE_URL?: string | undefined;
  STORE: "sqlite" | "memory";
  DATA_DIR: string;
  /** Webhook URLs: the question store writes an outbox message per URL for each resolution and late answer. */
  WEBHOOK_URLS?: readonly string[] | undefined;
}

/** The question store and the credential store beside it, on the same backend. */
export interface Stores {
  store: QuestionStore;
  credentials: CredentialStore;
  /** Closes both. */
  close(): Promise<void>;
}

type StoreLog = (message: string, error?: unknown) => void;

interface Backend {
  openQuestions(log?: StoreLog): Promise<QuestionStore>;
  openCredentials(): Promise<CredentialStore>;
}

/**
 * The one place the backend is chosen. Each backend's modules are imported only once it is chosen, so a gateway
 * without DATABASE_URL never loads `pg`, and one with it never loads `better-sqlite3`.
 */
function chooseBackend(config: StoresConfig): Backend {
  const url = config.DATABASE_URL;
  const webhookUrls = config.WEBHOOK_URLS ?? [];
  if (url) {
    return {
      openQuestions: async (log) => (await import("./postgres/postgres-store.ts")).createPostgresStore({ connectionString: url, webhookUrls, ...(log ? { log } : {}) }),
      openCredentials: async () => (await import("./postgres/postgres-credentials.ts")).createPostgresCredentialStore(url),
    };
  }
  if (config.STORE === "memory") {
    return {
      openQuestions: async () => (await import("./memory/memory-store.ts")).createMemoryStore({ webhookUrls }),
      openCredentials: async () => (await import("./memory/memory-credentials.ts")).createMemoryCredentialStore(),
    };
  }
  return {
    openQuestions: async () => (await import("./sqlite/sqlite-store.ts")).createSqliteStore({ dataDir: config.DATA_DIR, webhookUrls }),
    openCredentials: async () => (await import("./sqlite/sqlite-credentials.ts")).createSqliteCredentialStore(config.DATA_DIR),
  };
}

/** Opens the configured backend's question store, then its credential store (closing the first if that fails). */
export async function openStores(config: StoresConfig, log?: StoreLog): Promise<Stores> {
  const backend = chooseBackend(config);
  const store = await backend.openQuestions(log);
  let credentials: CredentialStore;
  try {
    credentials = await backend.openCredentials();
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    store,
    credentials,
    async close() {
      await Promise.all([store.close(), credentials.close()]);
    },
  };
}

/** The configured backend's credential store alone (`ask-user-bridge token`, which needs no question store). */
export function openCredentialStore(config: StoresConfig): Promise<CredentialStore> {
  return chooseBackend(config).openCredentials();
}
