/**
 * The framework tools stay optional: `ai`, `@langchain/core`, `@openai/agents` and `@anthropic-ai/claude-agent-sdk` are imported only by their own
 * module in src/frameworks/, and nothing the main entry (src/index.ts) loads imports any of them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const src = join(root, "src");

/** Each framework module and the one framework package it may import. */
const FRAMEWORK_MODULES: Record<string, (specifier: string) => boolean> = {
  "src/frameworks/ai.ts": (s) => s === "ai" || s.startsWith("ai/"),
  "src/frameworks/langchain.ts": (s) => s.startsWith("@langchain/"),
  "src/frameworks/openai-agents.ts": (s) => s.startsWith("@openai/agents"),
  "src/frameworks/claude-agent-sdk.ts": (s) => s.startsWith("@anthropic-ai/claude-agent-sdk"),
};
const isFramework = (s: string) => Object.values(FRAMEWORK_MODULES).some((matches) => matches(s));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

/** Static and dynamic import specifiers, type-only imports included. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, "utf8");
  const pattern = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|import\s*["']([^"']+)["']/g;
  return [...source.matchAll(pattern)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** Every source file reachable from `entry` through relative imports. */
function reachableFrom(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith(".")) continue;
      const target = resolve(dirname(file), specifier);
      const path = existsSync(target) && statSync(target).isFile() ? target : [`${target}.ts`, join(target, "index.ts")].find(existsSync);
      if (path) visit(path);
    }
  };
  visit(entry);
  return [...seen];
}

describe("frameworks boundary", () => {
  it.each(Object.entries(FRAMEWORK_MODULES))("%s imports its own framework and no other", (file, own) => {
    const frameworkImports = importsOf(join(root, file)).filter(isFramework);
    expect(frameworkImports.length).toBeGreaterThan(0);
    expect(frameworkImports.filter((s) => !own(s))).toEqual([]);
  });

  it("no other file in src/ imports a framework", () => {
    const offending = sourceFiles(src)
      .map((file) => relative(root, file))
      .filter((file) => !(file in FRAMEWORK_MODULES))
      .flatMap((file) => importsOf(join(root, file)).filter(isFramework).map((s) => `${file}: ${s}`));
    expect(offending).toEqual([]);
  });

  it("the main entry loads no framework module", () => {
    const files = reachableFrom(join(src, "index.ts")).map((file) => relative(root, file));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((file) => file.startsWith("src/frameworks/"))).toEqual([]);
    expect(files.flatMap((file) => importsOf(join(root, file)).filter(isFramework))).toEqual([]);
  });

  it("the checker sees a framework import", () => {
    expect(isFramework("ai") && isFramework("@langchain/core/tools") && isFramework("@openai/agents")).toBe(true);
    expect(isFramework("aim") || isFramework("@openai/other")).toBe(false);
  });
});
