import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import picomatch from "picomatch";
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

describe("the test tree mirrors the code", () => {
  it("no test file sits at the test/ root: each goes in the folder of the code it tests", () => {
    const atRoot = readdirSync(join(root, "test")).filter((name) => name.endsWith(".test.ts"));
    expect(atRoot).toEqual([]);
  });

  it("every test file belongs to exactly one vitest project", async () => {
    const { default: config } = await import("../../vitest.config.ts");
    const projects = (config.test?.projects ?? []) as Array<{ test: { name: string; include: string[]; exclude?: string[] } }>;
    expect(projects.map((p) => p.test.name)).toEqual(["unit", "platforms", "system", "browser"]);
    const testFiles = sourceFiles(join(root, "test"))
      .map((path) => relative(root, path))
      .filter((path) => path.endsWith(".test.ts"));
    for (const file of testFiles) {
      const owners = projects.filter((p) => picomatch(p.test.include)(file) && !picomatch(p.test.exclude ?? [])(file));
      expect(owners.map((p) => p.test.name), file).toHaveLength(1);
    }
  });
});

/**
 * The ratchet on real-time waits: the count of `sleep(` calls under test/ may only go down. Wait for the event, or
 * advance the virtual clock, instead. Lower SLEEP_CALLS when you remove some.
 */
const SLEEP_CALLS = 159;

describe("ratchet: real-time sleeps in tests", () => {
  it(`test/ has at most ${SLEEP_CALLS} sleep( calls`, () => {
    const count = sourceFiles(join(root, "test"))
      .filter((path) => !path.endsWith("boundary.test.ts"))
      .reduce((sum, path) => sum + (readFileSync(path, "utf8").match(/\bsleep\(/g)?.length ?? 0), 0);
    expect(count).toBeLessThanOrEqual(SLEEP_CALLS);
  });
});

/**
 * Every test/platforms/<p>/ holds the same files: the platform's fake, its harness and delivery kit, the shared suites
 * (<p>.test.ts), its renderers' cases and its own behaviour. Other files may sit beside them.
 */
describe("tests: every platform folder has the fixed files", () => {
  const platformsDir = join(root, "test", "platforms");
  const folders = readdirSync(platformsDir).filter((name) => statSync(join(platformsDir, name)).isDirectory());
  const fixedFiles = (platform: string) => ["fake-api.ts", "harness.ts", "delivery-kit.ts", `${platform}.test.ts`, "renderers.test.ts", "specifics.test.ts"];

  it("finds a folder for every registered platform, and the in-memory one", () => {
    expect(folders).toEqual(expect.arrayContaining([...PLATFORM_NAMES, "memory"]));
  });

  it.each(folders.map((p) => [p]))("test/platforms/%s", (platform) => {
    expect(fixedFiles(platform).filter((file) => !existsSync(join(platformsDir, platform, file)))).toEqual([]);
  });
});
