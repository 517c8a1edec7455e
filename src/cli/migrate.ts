import type { Config } from "../runtime/config.ts";
import { parseCommandArgs } from "./args.ts";

type IO = { out: (s: string) => void; err: (s: string) => void };

export const MIGRATE_HELP = `Usage: ask-user-bridge migrate

Brings the store's schema up to date and says what it applied: PostgreSQL at DATABASE_URL, else the SQLite
database under DATA_DIR. Safe to run while gateways are up, and from several machines at once (PostgreSQL takes an
advisory lock). Every gateway also applies pending migrations when it starts, so this is for ops who want the
schema change done, and seen, before a rollout.`;

export async function runMigrate(argv: string[], config: Config, io: IO): Promise<number> {
  const { values } = parseCommandArgs(argv, {});
  if (values.help) return io.out(MIGRATE_HELP), 0;
  if (config.DATABASE_URL) {
    const { runPostgresMigrations } = await import("../gateway/store/postgres/postgres-schema.ts");
    const report = await runPostgresMigrations(config.DATABASE_URL);
    io.out(
      report.applied.length === 0
        ? `PostgreSQL schema is current (version ${report.to}).`
        : `PostgreSQL schema migrated from version ${report.from} to ${report.to} (applied ${report.applied.join(", ")}).`,
    );
    return 0;
  }
  const { migrateSqliteDataDir } = await import("../gateway/store/sqlite/sqlite-schema.ts");
  const report = migrateSqliteDataDir(config.DATA_DIR);
  io.out(
    report.from === report.to
      ? `SQLite schema is current (version ${report.to}) in ${report.file}.`
      : `SQLite schema migrated from version ${report.from} to ${report.to} in ${report.file}.`,
  );
  return 0;
}
