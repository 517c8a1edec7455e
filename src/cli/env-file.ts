/**
 * A .env file written by `init`: values quoted so dotenv reads them back exactly, merged into an existing file (its
 * other lines and comments kept, the keys set here replaced where they stand), backed up first, and private (0600).
 */
import { chmodSync, copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

/** A value as dotenv reads it back: bare when it holds only safe characters, else in the first quotes that fit. */
export function quoteEnvValue(value: string): string {
  if (/^[A-Za-z0-9_@.:,+/=-]*$/u.test(value)) return value;
  if (value.includes("\n") || value.includes("\r")) throw new Error("a value for .env may not hold a line break");
  // Single quotes are literal in dotenv; double quotes expand \n; backquotes are literal too.
  for (const quote of ["'", '"', "`"]) if (!value.includes(quote) && !(quote === '"' && value.includes("\\"))) return `${quote}${value}${quote}`;
  throw new Error("a value for .env may not hold ', \" and ` together");
}

const ASSIGNMENT = /^\s*(?:export\s+)?([\w.-]+)\s*=\s*(.*)$/u;

/** The file's lines grouped by entry: an assignment whose quoted value runs over several lines is one entry. */
function entries(text: string): Array<{ key?: string; lines: string[] }> {
  const lines = text.split(/\r?\n/u);
  if (lines.at(-1) === "") lines.pop();
  const out: Array<{ key?: string; lines: string[] }> = [];
  for (let i = 0; i < lines.length; i++) {
    const match = ASSIGNMENT.exec(lines[i]!);
    if (!match) {
      out.push({ lines: [lines[i]!] });
      continue;
    }
    const entry = { key: match[1]!, lines: [lines[i]!] };
    const value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'" || quote === "`") && !value.slice(1).includes(quote)) {
      // A quoted value that goes on: up to the line that closes it (dotenv's multi-line values).
      while (i + 1 < lines.length) {
        entry.lines.push(lines[++i]!);
        if (lines[i]!.includes(quote)) break;
      }
    }
    out.push(entry);
  }
  return out;
}

/**
 * `before` with `values` set: each key's first assignment replaced in place and any later one dropped; keys it did
 * not have appended under `header` (a comment).
 */
export function mergeEnvText(before: string, values: Readonly<Record<string, string>>, header: string): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const entry of entries(before)) {
    if (entry.key === undefined || !Object.hasOwn(values, entry.key)) lines.push(...entry.lines);
    else if (!seen.has(entry.key)) {
      seen.add(entry.key);
      lines.push(`${entry.key}=${quoteEnvValue(values[entry.key]!)}`);
    }
  }
  const added = Object.keys(values).filter((key) => !seen.has(key));
  if (added.length > 0) {
    if (lines.length > 0 && lines.at(-1)!.trim() !== "") lines.push("");
    lines.push(`# ${header}`, ...added.map((key) => `${key}=${quoteEnvValue(values[key]!)}`));
  }
  return `${lines.join("\n")}\n`;
}

/** An entry's value as dotenv reads it: quotes taken off (`\n` expanded in double quotes), else up to a ` #` comment. */
function entryValue(lines: readonly string[]): string {
  const first = ASSIGNMENT.exec(lines[0]!)![2]!;
  const text = [first, ...lines.slice(1)].join("\n");
  const quote = text[0];
  if (quote === '"' || quote === "'" || quote === "`") {
    const end = text.indexOf(quote, 1);
    const inner = end === -1 ? text.slice(1) : text.slice(1, end);
    return quote === '"' ? inner.replace(/\\n/gu, "\n").replace(/\\r/gu, "\r") : inner;
  }
  return text.replace(/\s+#.*$/u, "").replace(/^#.*$/u, "").trim();
}

/**
 * The values a .env file holds, the last assignment of a key winning as in dotenv (empty when there is no file).
 * Only the entry points load dotenv (test/project/boundary.test.ts), so this small reader matches the writer above.
 */
export function readEnvFile(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const entry of entries(readFileSync(file, "utf8"))) if (entry.key !== undefined) values[entry.key] = entryValue(entry.lines);
  return values;
}

/** Where the old file is copied: `.env.bak`, or `.env.bak.<time>` when that is taken. */
function backupPath(file: string): string {
  const plain = `${file}.bak`;
  return existsSync(plain) ? `${plain}.${new Date().toISOString().replace(/[:.]/gu, "-")}` : plain;
}

/**
 * Writes `values` into `file` (merged, see mergeEnvText), mode 0600, through a temporary file renamed over it; an
 * existing file is first copied to its backup (0600 too).
 */
export function writeEnvFile(file: string, values: Readonly<Record<string, string>>, header: string): { backup?: string; changed: boolean } {
  const before = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  const next = mergeEnvText(before ?? "", values, header);
  if (next === before) {
    chmodSync(file, 0o600);
    return { changed: false };
  }
  let backup: string | undefined;
  if (before !== undefined) {
    backup = backupPath(file);
    copyFileSync(file, backup);
    chmodSync(backup, 0o600);
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, next, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return { ...(backup ? { backup } : {}), changed: true };
}
