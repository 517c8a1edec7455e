/**
 * How to run this same CLI again from a shell: the node that runs it and the entry it was started with, both by
 * absolute path (never `npx`, which would fetch a package of that name from the registry where it is not installed).
 */
import { resolve } from "node:path";

/** A word for a POSIX shell: as it is when it holds only safe characters, else single-quoted. */
export const shellQuote = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** `node /abs/…/ask-user-bridge.js <args>` as one shell command (the node flags it was started with kept). */
export function selfCommand(args: readonly string[], entry = process.argv[1]): string {
  const self = entry ? [process.execPath, ...process.execArgv, resolve(entry)] : ["ask-user-bridge"];
  return [...self, ...args].map(shellQuote).join(" ");
}
