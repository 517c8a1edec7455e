import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { preparePrivateDir } from "../../src/runtime/data-dir.ts";

/** How far the bot has read a mailbox: every mail up to `uid` is handled, in the mailbox of this `uidValidity`. */
export interface ImapCursor {
  /** The mailbox's UIDVALIDITY (a 32-bit number, kept as text). */
  uidValidity: string;
  uid: number;
  /** When it was written (ISO): a new UIDVALIDITY reads unseen mail from that day on. */
  savedAt: string;
}

/**
 * The UID cursor of the mailbox the bot reads replies from (./imap.ts), kept in DATA_DIR so that a restarted bot goes on
 * after the last mail it handled: nothing that came while it was down is lost, and nothing it had handled comes again.
 * One file per server, account and mailbox (several bots may share a DATA_DIR). Each write goes to a temporary file (0600)
 * that is synced and renamed over the old one, so a crash leaves either the old cursor or the new one, never half of one.
 */
export function createImapCursorStore(dataDir: string, account: string) {
  const key = createHash("sha256").update(account).digest("hex").slice(0, 16);
  const file = join(dataDir, `email-imap-${key}.json`);
  return {
    file,
    read(): ImapCursor | undefined {
      try {
        const saved = JSON.parse(readFileSync(file, "utf8")) as Partial<ImapCursor> & { account?: unknown };
        const valid = saved.account === account && typeof saved.uidValidity === "string" && Number.isSafeInteger(saved.uid) && typeof saved.savedAt === "string";
        return valid ? { uidValidity: saved.uidValidity!, uid: saved.uid!, savedAt: saved.savedAt! } : undefined;
      } catch {
        return undefined;
      }
    },
    write(uidValidity: string, uid: number): void {
      preparePrivateDir(dataDir);
      const temporary = `${file}.${process.pid}.tmp`;
      const fd = openSync(temporary, "w", 0o600);
      try {
        writeSync(fd, JSON.stringify({ account, uidValidity, uid, savedAt: new Date().toISOString() }));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, file);
    },
  };
}

export type ImapCursorStore = ReturnType<typeof createImapCursorStore>;
