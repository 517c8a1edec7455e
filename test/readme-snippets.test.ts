/**
 * The README's framework snippets are the code the framework tests run: each test marks the block it shares with
 * the README (`// README: "<heading>"` … `// end README`), and this suite checks the two stay the same, statement
 * by statement. Only the gateway's address and token differ (the test's own gateway).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The statements of the first ts code block under `### heading`, without its imports. */
function readmeSnippet(heading: string): string[] {
  const section = README.split(`\n### ${heading}\n`)[1];
  const block = section?.match(/```ts\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error(`README has no ts block under "### ${heading}"`);
  return block
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("import "))
    .map((line) => line.replace('{ url: "http://127.0.0.1:8787", token: process.env.GATEWAY_TOKEN! }', "{ url, token }"));
}

function testBlock(file: string, heading: string): string[] {
  const source = readFileSync(join(ROOT, "test", file), "utf8");
  const block = source.split(`// README: "${heading}"`)[1]?.split("// end README")[0];
  if (!block) throw new Error(`${file} has no README block for "${heading}"`);
  return block
    .split("\n")
    .slice(1)
    .map((line) => line.trim())
    .filter(Boolean);
}

describe("README framework snippets", () => {
  it.each([
    ["Vercel AI SDK", "frameworks-ai.test.ts"],
    ["LangChain.js", "frameworks-langchain.test.ts"],
    ["OpenAI Agents SDK", "frameworks-openai-agents.test.ts"],
    ["Codex", "codex-app-server.test.ts"],
    ["Verifying the signature", "webhooks.test.ts"],
  ])("%s is the code %s runs", (heading, file) => {
    expect(readmeSnippet(heading)).toEqual(testBlock(file, heading));
  });
});
