import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";

/**
 * DATA_DIR holds the question records (answers people gave) and the generated gateway token: private to the user
 * that runs the gateway. Creates it 0700 when missing; for one that exists, returns a warning naming it when its
 * mode lets anyone else in (its owner decides, so it is not changed behind their back).
 */
export function preparePrivateDir(dir: string): { created: boolean; warning?: string } {
  let mode: number;
  try {
    mode = statSync(dir).mode & 0o777;
  } catch {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // mkdir's mode is masked by the umask, which can only remove bits; make it exact
    return { created: true };
  }
  if ((mode & 0o077) === 0) return { created: false };
  return {
    created: false,
    warning: `DATA_DIR ${dir} is readable by other users (mode ${mode.toString(8).padStart(3, "0")}); it holds answers and the gateway token: run \`chmod 700 ${dir}\``,
  };
}

/** Creates `file` owner-only (0600) if missing, and makes an existing one owner-only; SQLite gives its -wal and -shm files the same mode. */
export function restrictFile(file: string): void {
  closeSync(openSync(file, "a", 0o600));
  chmodSync(file, 0o600);
}
