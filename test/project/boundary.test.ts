import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PLATFORM_LIST } from "../../src/platforms/descriptors.ts";
import { PLATFORM_NAMES } from "../../src/platforms/index.ts";

const root = join(import.meta.dirname, "..", "..");
/** Every platform's SDKs, from its descriptor, and dotenv (only entry points read the environment). */
const FORBIDDEN = ["dotenv", ...PLATFORM_LIST.flatMap((p) => p.sdks)];
/** `pkg` is one of these packages, or (for a name ending in `/`) in that scope. */
const isOneOf = (pkg: string, names: readonly string[]) => names.some((f) => pkg === f || pkg.startsWith(f.endsWith("/") ? f : `${f}/`));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|require\s*\(\s*["']([^"']+)["']\s*\)|import\s*["']([^"']+)["']/g;
  for (const m of source.matchAll(pattern)) specifiers.push((m[1] ?? m[2] ?? m[3] ?? m[4])!);
  return specifiers;
}

describe("boundary: src/ never imports a platform SDK or reads .env", () => {
  const files = sourceFiles(join(root, "src"));

  it("finds the sources", () => {
    expect(files.length).toBeGreaterThan(3);
  });

  it.each(files.map((f) => [relative(root, f)]))("%s", (file) => {
    const offending = importsOf(readFileSync(join(root, file), "utf8")).filter((s) => isOneOf(s, FORBIDDEN));
    expect(offending).toEqual([]);
  });

  it("the checker itself sees a forbidden import", () => {
    expect(importsOf(`import { Bot } from "grammy";\nconst x = await import("discord.js");`)).toEqual(["grammy", "discord.js"]);
  });
});

describe("boundary: the forbidden SDKs are the ones the bots use", () => {
  it("every folder under bots/ but bots/kit (the bots' workshop) is a registered platform, and every platform has one", () => {
    const folders = readdirSync(join(root, "bots")).filter((name) => name !== "kit" && statSync(join(root, "bots", name)).isDirectory());
    expect(folders.sort()).toEqual([...PLATFORM_NAMES].sort());
    expect(PLATFORM_NAMES).not.toContain("kit");
  });

  it.each(PLATFORM_LIST.map((p) => [p.surface, p.sdks] as const))("bots/%s imports no package its descriptor's sdks leave out", (name, sdks) => {
    const packages = sourceFiles(join(root, "bots", name))
      .flatMap((file) => importsOf(readFileSync(file, "utf8")))
      .filter((s) => !s.startsWith(".") && !s.startsWith("node:"));
    // A bot on plain fetch (its descriptor lists no SDK) imports no package at all.
    if (sdks.length > 0) expect(packages.length).toBeGreaterThan(0);
    expect(packages.filter((pkg) => !isOneOf(pkg, sdks))).toEqual([]);
  });
});

/**
 * No file under src/ outside src/platforms/ names a platform, in code or in comments. The generated Control UI
 * bundle (src/web/static/shared.js) is left out: it is built from the sources checked here.
 */
describe("naming: only src/platforms/ names a platform", () => {
  const platformWord = new RegExp(`\\b(?:${PLATFORM_NAMES.join("|")})\\b`, "giu");
  const files = sourceFiles(join(root, "src"))
    .concat(readdirSync(join(root, "src", "web", "static")).filter((n) => n.endsWith(".html")).map((n) => join(root, "src", "web", "static", n)))
    .map((f) => relative(root, f))
    .filter((f) => !f.startsWith("src/platforms/") && f !== "src/web/static/shared.js");
  const named = (file: string) => [...readFileSync(join(root, file), "utf8").matchAll(platformWord)].map((m) => m[0]);

  it("finds the sources and the platform names", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(named("src/platforms/telegram/platform.ts").length).toBeGreaterThan(0);
  });

  it.each(files.map((f) => [f]))("%s names no platform", (file) => {
    expect(named(file)).toEqual([]);
  });
});
