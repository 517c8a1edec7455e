/**
 * Everything the store has, every backend included, for tests and benchmarks: importing this loads both drivers.
 * The gateway and the CLI open their backend through openStores (./open-stores.ts), which loads only the chosen one.
 */
export type {
  ClaimOutcome,
  DeliveryClaim,
  HeldClaim,
  ListFilter,
  PendingFilter,
  PendingLimits,
  ReplyKey,
  QuestionStore,
  Resolution,
  ResolveOutcome,
  StoreChange,
  WebhookClaim,
  WebhookEvent,
  WebhookMessage,
  WebhookSettlement,
} from "./kit/types.ts";
export { createMemoryStore } from "./memory/memory-store.ts";
export { createSqliteStore, type SqliteStoreOptions } from "./sqlite/sqlite-store.ts";
export { SQLITE_FILE_NAME, SQLITE_MIGRATIONS, SQLITE_PRAGMAS, applySqlitePragmas } from "./sqlite/sqlite-schema.ts";
export { CorruptRecordError, QuestionExistsError, QuotaExceededError, SessionBusyError, StoreUnavailableError, type QuotaExceeded } from "./kit/errors.ts";
export { createPostgresStore, type PostgresQuestionStore, type PostgresStoreOptions } from "./postgres/postgres-store.ts";
export {
  POSTGRES_CHANNEL,
  POSTGRES_MIGRATIONS,
  POSTGRES_MIGRATIONS_TABLE,
  migratePostgres,
  runPostgresMigrations,
  type PostgresMigrationReport,
} from "./postgres/postgres-schema.ts";
export { openCredentialStore, openStores, type Stores, type StoresConfig } from "./open-stores.ts";
export { isRole, ROLES, type Credential, type CredentialStore, type Role } from "./kit/credentials.ts";
export { createMemoryCredentialStore } from "./memory/memory-credentials.ts";
export { createSqliteCredentialStore } from "./sqlite/sqlite-credentials.ts";
export { createPostgresCredentialStore } from "./postgres/postgres-credentials.ts";
