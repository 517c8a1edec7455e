/**
 * How to run this same CLI again from a shell: the node that runs it and the entry it was started with, both by
 * absolute path (never `npx`, which would fetch a package of that name from the registry where it is not installed).
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

/** A word for a POSIX shell: as it is when it holds only safe characters, else single-quoted. */
export const shellQuote = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * The entry's real path: through npx or a global install it is a link (npx's in its cache, which may be cleared),
 * and what a hook or a set-up runs later must be the file itself.
 */
export function selfEntry(entry: string): string {
  try {
    return realpathSync(entry);
  } catch {
    return resolve(entry);
  }
}

/** `node /abs/…/ask-user-bridge.js <args>` as one shell command (the node flags it was started with kept). */
export function selfCommand(args: readonly string[], entry = process.argv[1]): string {
  const self = entry ? [process.execPath, ...process.execArgv, selfEntry(entry)] : ["ask-user-bridge"];
  return [...self, ...args].map(shellQuote).join(" ");
}
