/**
 * The Chromium that the browser tests drive through playwright-core. Nothing is ever downloaded. Order:
 *   1. `$CHROMIUM_PATH` (if set, the file must exist: a typo is an error, not a silent fallback);
 *   2. Debian's `/usr/bin/chromium`;
 *   3. the headless Chromium packed inside the `@sparticuz/chromium` devDependency (`{ packaged: true }` forces it).
 *
 * The packaged one is brotli-compressed in node_modules; `executablePath()` inflates it into a temp dir. That call
 * is not safe across processes: it returns `$TMPDIR/chromium` as soon as that file *exists*, so a second vitest
 * worker starting mid-extraction gets a half-written binary (spawn fails with ETXTBSY), and a crash mid-extraction
 * leaves a truncated binary that every later run trusts. It also never re-extracts after a version bump. So here
 * each process lets it inflate into a private staging dir, then publishes that dir with one atomic rename to
 * `$TMPDIR/aub-chromium-<version>-u<uid>/`: other processes see either nothing or the complete set, and when two
 * extract at once the loser drops its copy and uses the winner's. No lock, so nothing stale to clean up after a kill.
 *
 * Launch arguments are always our own: `@sparticuz/chromium`'s `args` are for AWS Lambda, and their
 * `--single-process` takes the whole browser down when a context closes.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { chromium, type Browser, type LaunchOptions } from "playwright-core";

export type BrowserSource = "CHROMIUM_PATH" | "debian" | "packaged";

export interface FoundBrowser {
  executablePath: string;
  source: BrowserSource;
  /** Extra environment the binary needs (the packaged one: its fonts, and its own NSS libraries if the system has none). */
  env: Record<string, string>;
}

export interface FindBrowserOptions {
  /** Use the Chromium packed in `@sparticuz/chromium` even if `$CHROMIUM_PATH` or Debian's is there. */
  packaged?: boolean;
}

export interface LaunchBrowserOptions extends FindBrowserOptions {
  /** More environment for the browser process, on top of `process.env` and what `findBrowser` found it needs. */
  env?: Record<string, string>;
  /** Other playwright launch options (the executable and the arguments are not negotiable). */
  launch?: Omit<LaunchOptions, "executablePath" | "args" | "env">;
}

/** The only arguments any test browser gets. */
export const BROWSER_ARGS: readonly string[] = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"];

export const DEBIAN_CHROMIUM = "/usr/bin/chromium";

export async function findBrowser(options: FindBrowserOptions = {}): Promise<FoundBrowser> {
  if (!options.packaged) {
    const fromEnv = process.env.CHROMIUM_PATH?.trim();
    if (fromEnv) {
      const problem = notAnExecutable(fromEnv);
      if (problem) {
        throw new Error(
          `CHROMIUM_PATH is set to "${fromEnv}", but ${problem}. Point CHROMIUM_PATH at a Chromium binary, ` +
            `or unset it to use ${DEBIAN_CHROMIUM} or the Chromium packed in @sparticuz/chromium.`,
        );
      }
      return { executablePath: fromEnv, source: "CHROMIUM_PATH", env: {} };
    }
    if (!notAnExecutable(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM, source: "debian", env: {} };
  }
  return packagedBrowser();
}

/** Finds a browser as above and launches it headless with {@link BROWSER_ARGS}. */
export async function launchBrowser(options: LaunchBrowserOptions = {}): Promise<Browser> {
  const found = await findBrowser(options);
  const env = { ...found.env, ...options.env };
  try {
    return await chromium.launch({
      ...options.launch,
      executablePath: found.executablePath,
      args: [...BROWSER_ARGS],
      ...(Object.keys(env).length > 0 ? { env: { ...process.env, ...env } } : {}),
    });
  } catch (error) {
    if (error instanceof Error) error.message = `Could not launch the ${found.source} Chromium (${found.executablePath}): ${error.message}`;
    throw error;
  }
}

function notAnExecutable(path: string): string | undefined {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return "no such file exists";
  }
  if (!isFile) return "that is not a file";
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return "that file is not executable";
  }
  return undefined;
}

// ---------------------------------------------------------------- the packaged Chromium

const requireHere = createRequire(import.meta.url);

let packaged: Promise<FoundBrowser> | undefined;

/** Once per process; a failure is not cached, so the next caller tries again. */
function packagedBrowser(): Promise<FoundBrowser> {
  packaged ??= preparePackaged().catch((error: unknown) => {
    packaged = undefined;
    throw error;
  });
  return packaged;
}

function packageVersion(): string {
  // The package's exports map hides package.json; its `require` entry point is build/cjs/index.cjs.
  const root = join(dirname(requireHere.resolve("@sparticuz/chromium")), "..", "..");
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  return version;
}

async function preparePackaged(): Promise<FoundBrowser> {
  const version = packageVersion();
  const root = tmpdir();
  const dir = join(root, `aub-chromium-${version}-u${process.getuid?.() ?? 0}`);
  const exe = join(dir, "chromium");
  const complete = join(dir, ".complete");

  const whole = () => existsSync(complete) && existsSync(exe);
  if (!whole()) {
    // Half-deleted by a temp cleaner, say: move it out of the way (atomically) and extract afresh. Checked again
    // here, as another process may have published a whole copy since the line above.
    if (existsSync(dir) && !whole()) discard(dir);
    await extractInto(dir, root);
  }

  const env: Record<string, string> = {};
  // Without a system fontconfig set-up (a bare container) fontconfig finds no fonts at all; use the packed Open Sans.
  if (!process.env.FONTCONFIG_FILE && !process.env.FONTCONFIG_PATH && !existsSync("/etc/fonts/fonts.conf")) {
    env.FONTCONFIG_FILE = join(dir, "fonts.conf");
  }
  // The binary links the system's NSS, NSPR and expat. If they are missing (Debian: libnss3), use the copies
  // @sparticuz/chromium packs for Amazon Linux 2023, which it only unpacks on AL2023 itself.
  let run = probe(exe, env);
  if (/error while loading shared libraries/.test(run.output)) {
    env.LD_LIBRARY_PATH = [join(dir, "al2023", "lib"), process.env.LD_LIBRARY_PATH].filter(Boolean).join(":");
    run = probe(exe, env);
  }
  if (!run.ok) {
    throw new Error(`The Chromium packed in @sparticuz/chromium ${version} (${exe}) does not run here: ${run.output || "no output"}`);
  }
  return { executablePath: exe, source: "packaged", env };
}

function probe(exe: string, env: Record<string, string>): { ok: boolean; output: string } {
  const run = spawnSync(exe, ["--version"], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 30_000 });
  const output = [run.error?.message, run.stdout, run.stderr].filter(Boolean).join(" ").trim();
  return { ok: run.status === 0 && /Chromium/.test(run.stdout ?? ""), output };
}

/** Inflates everything into a private staging dir, then renames it to `dir` in one step (or uses the copy that won). */
async function extractInto(dir: string, root: string): Promise<void> {
  sweepStaging(root);
  const staging = mkdtempSync(`${dir}.staging-`);
  try {
    const { default: Sparticuz } = await import("@sparticuz/chromium");
    // executablePath() reads os.tmpdir() (that is, $TMPDIR) only synchronously, before its first await: point it
    // at the staging dir for exactly that call. Checked below, in case a later version reads it later.
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = staging;
    let inflating: Promise<string>;
    try {
      inflating = Sparticuz.executablePath();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    const inflated = await inflating;
    if (inflated !== join(staging, "chromium")) {
      throw new Error(`@sparticuz/chromium inflated Chromium to ${inflated}, not into ${staging}; test/helpers/browser.ts needs updating`);
    }
    const bin = join(dirname(requireHere.resolve("@sparticuz/chromium")), "..", "..", "bin");
    untar(brotliDecompressSync(readFileSync(join(bin, "al2023.tar.br"))), join(staging, "al2023"));
    // The packed fonts.conf names /tmp/fonts; this one names where the fonts really are.
    writeFileSync(
      join(staging, "fonts.conf"),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, "fonts")}</dir>\n  <cachedir>${join(dir, "fonts-cache")}</cachedir>\n</fontconfig>\n`,
    );
    writeFileSync(join(staging, ".complete"), `${new Date().toISOString()} pid ${process.pid}\n`);
    try {
      renameSync(staging, dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another process published first: its copy is complete, use it.
      if ((code === "ENOTEMPTY" || code === "EEXIST") && existsSync(join(dir, ".complete")) && existsSync(join(dir, "chromium"))) return;
      throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Renames a broken copy aside, then deletes it (a process still running the old binary keeps its inode). */
function discard(dir: string): void {
  const aside = `${dir}.discarded-${process.pid}-${Date.now()}`;
  try {
    renameSync(dir, aside);
  } catch {
    return; // someone else moved it already
  }
  rmSync(aside, { recursive: true, force: true });
}

/** Staging dirs left by killed processes: anything of ours older than ten minutes. */
function sweepStaging(root: string): void {
  const cutoff = Date.now() - 10 * 60_000;
  for (const name of readdirSync(root)) {
    if (!/^aub-chromium-.*\.(staging|discarded)-/.test(name)) continue;
    const path = join(root, name);
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { recursive: true, force: true });
    } catch {
      // gone already
    }
  }
}

/** Enough of ustar for al2023.tar: regular files and directories. */
function untar(tar: Buffer, into: string): void {
  const field = (block: Buffer, start: number, length: number) => block.toString("latin1", start, start + length).replace(/\0.*$/s, "");
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    const name = field(header, 0, 100);
    if (!name) break; // the zero blocks at the end
    const prefix = field(header, 345, 155);
    const path = prefix ? `${prefix}/${name}` : name;
    const size = parseInt(field(header, 124, 12).trim() || "0", 8);
    const mode = parseInt(field(header, 100, 8).trim() || "644", 8);
    const type = field(header, 156, 1) || "0";
    const target = join(into, path);
    if (!target.startsWith(into + "/")) throw new Error(`al2023.tar: refusing the path ${path}`);
    if (type === "5") mkdirSync(target, { recursive: true });
    else if (type === "0") {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, tar.subarray(offset + 512, offset + 512 + size), { mode });
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
}
