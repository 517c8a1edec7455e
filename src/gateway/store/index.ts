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
} from "./types.ts";
export { createMemoryStore } from "./memory-store.ts";
export { createSqliteStore, type SqliteStoreOptions } from "./sqlite-store.ts";
export { SQLITE_FILE_NAME, SQLITE_MIGRATIONS, SQLITE_PRAGMAS, applySqlitePragmas } from "./sqlite-schema.ts";
export { CorruptRecordError, QuestionExistsError, QuotaExceededError, SessionBusyError, StoreUnavailableError, type QuotaExceeded } from "./errors.ts";
export { createPostgresStore, type PostgresQuestionStore, type PostgresStoreOptions } from "./postgres-store.ts";
export {
  POSTGRES_CHANNEL,
  POSTGRES_MIGRATIONS,
  POSTGRES_MIGRATIONS_TABLE,
  migratePostgres,
  runPostgresMigrations,
  type PostgresMigrationReport,
} from "./postgres-schema.ts";
