/**
 * Scoped credentials' storage, for the gateway and the CLI. Each backend lives beside its question store in
 * src/gateway/store/, and src/gateway/store/open-stores.ts picks one; the drivers load only when a store is opened.
 */
export type { Credential, CredentialStore, FoundSession, StoredSession, StoredSessions } from "../store/kit/credentials.ts";
export { createMemoryCredentialStore } from "../store/memory/memory-credentials.ts";
export { createSqliteCredentialStore } from "../store/sqlite/sqlite-credentials.ts";
export { createPostgresCredentialStore } from "../store/postgres/postgres-credentials.ts";
export { openCredentialStore } from "../store/open-stores.ts";
