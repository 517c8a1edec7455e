import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { preparePrivateDir } from "../../src/runtime/data-dir.ts";

/**
 * The sync token (`next_batch`) of the last /sync batch the bot has handled, kept in DATA_DIR so that a restarted bot
 * goes on from it: nothing that came while it was down is lost, and nothing it had handled comes again. One file per
 * homeserver and account (several bots may share a DATA_DIR). Each write goes to a temporary file that is synced and
 * renamed over the old one, so a crash leaves either the old token or the new one, never half of one.
 */
export function createSyncTokenStore(dataDir: string, homeserver: string, userId: string) {
  const key = createHash("sha256").update(`${homeserver}\n${userId}`).digest("hex").slice(0, 16);
  const file = join(dataDir, `matrix-sync-${key}.json`);
  return {
    file,
    read(): string | undefined {
      try {
        const saved = JSON.parse(readFileSync(file, "utf8")) as { next_batch?: unknown; user_id?: unknown };
        return typeof saved.next_batch === "string" && saved.user_id === userId ? saved.next_batch : undefined;
      } catch {
        return undefined;
      }
    },
    write(nextBatch: string): void {
      preparePrivateDir(dataDir);
      const temporary = `${file}.${process.pid}.tmp`;
      const fd = openSync(temporary, "w", 0o600);
      try {
        writeSync(fd, JSON.stringify({ user_id: userId, next_batch: nextBatch, saved_at: new Date().toISOString() }));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, file);
    },
  };
}

export type SyncTokenStore = ReturnType<typeof createSyncTokenStore>;
