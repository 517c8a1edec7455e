import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * DATA_DIR holds the question records (answers people gave, and question text in the SQLite WAL) and the generated
 * gateway token: private to the user that runs the gateway. The directory is 0700 and every file the gateway keeps in
 * it 0600.
 */
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;
/** The bits that let the group or anyone else in. */
const OTHERS = 0o077;

/** Creates `dir` 0700 when missing. */
export function preparePrivateDir(dir: string): { created: boolean } {
  try {
    statSync(dir);
    return { created: false };
  } catch {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
    chmodSync(dir, PRIVATE_DIR); // mkdir's mode is masked by the umask, which can only remove bits; make it exact
    return { created: true };
  }
}

/** Creates `file` owner-only (0600) if missing, and makes an existing one owner-only; SQLite gives its -wal and -shm files the same mode. */
export function restrictFile(file: string): void {
  closeSync(openSync(file, "a", PRIVATE_FILE));
  chmodSync(file, PRIVATE_FILE);
}

/** A mode `tightenPrivateDir` changed, or could not change (`error`: the code, such as EPERM). */
export interface ModeChange {
  path: string;
  from: number;
  to: number;
  error?: string;
}

function tighten(path: string, to: number): ModeChange | undefined {
  let from: number;
  try {
    from = statSync(path).mode & 0o777;
  } catch {
    return undefined; // not there: nothing to tighten
  }
  if ((from & OTHERS) === 0) return undefined;
  try {
    chmodSync(path, to);
    return { path, from, to };
  } catch (error) {
    return { path, from, to, error: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

/**
 * Makes `dir` and each of `files` in it that exists private: the directory 0700 (created when missing), the files
 * 0600, whatever mode an earlier release or a hand-made copy left them with. What already lets nobody else in is left
 * as it is. Returns every change, and every change that failed, for the caller to log.
 */
export function tightenPrivateDir(dir: string, files: readonly string[]): ModeChange[] {
  preparePrivateDir(dir);
  return [tighten(dir, PRIVATE_DIR), ...files.map((file) => tighten(join(dir, file), PRIVATE_FILE))].filter((c): c is ModeChange => c !== undefined);
}

const octal = (mode: number) => mode.toString(8).padStart(3, "0");

/** One line naming each path and its old mode. */
export function describeModeChanges(changes: readonly ModeChange[]): string {
  const each = changes.map((c) =>
    c.error === undefined ? `${c.path} (was ${octal(c.from)}, now ${octal(c.to)})` : `${c.path} (is ${octal(c.from)}; could not make it ${octal(c.to)}: ${c.error})`,
  );
  return `DATA_DIR holds answers and the gateway token, and other users could read some of it; made owner-only: ${each.join(", ")}`;
}
