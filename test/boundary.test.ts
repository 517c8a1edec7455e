import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const FORBIDDEN = ["grammy", "discord.js", "@slack/bolt", "@slack/web-api", "@slack/socket-mode", "dotenv", "@grammyjs/"];

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
    const offending = importsOf(readFileSync(join(root, file), "utf8")).filter((s) =>
      FORBIDDEN.some((f) => s === f || s.startsWith(f.endsWith("/") ? f : `${f}/`)),
    );
    expect(offending).toEqual([]);
  });

  it("the checker itself sees a forbidden import", () => {
    expect(importsOf(`import { Bot } from "grammy";\nconst x = await import("discord.js");`)).toEqual(["grammy", "discord.js"]);
  });
});
