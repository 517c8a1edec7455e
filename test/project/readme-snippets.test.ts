/**
 * The documentation's framework snippets are the code the framework tests run: each test marks the block it shares
 * with the docs (`// README: "<heading>"` … `// end README`), and this suite checks the two stay the same, statement
 * by statement. Only the gateway's address and token differ (the test's own gateway). The snippets moved from the
 * README into docs/ (issue 36 §4); each is the first ts block under its heading in the page named below.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** The statements of the first ts code block under the heading `heading` (any level) of `page`, without its imports. */
function docSnippet(page: string, heading: string): string[] {
  const text = readFileSync(join(ROOT, page), "utf8");
  const escaped = heading.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&");
  const section = text.split(new RegExp(`\\n#{1,6} ${escaped}\\n`))[1];
  const block = section?.match(/```ts\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error(`${page} has no ts block under the heading "${heading}"`);
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

describe("documentation framework snippets", () => {
  it.each([
    ["Vercel AI SDK", "docs/sdk.md", "frameworks/frameworks-ai.test.ts"],
    ["LangChain.js", "docs/sdk.md", "frameworks/frameworks-langchain.test.ts"],
    ["OpenAI Agents SDK", "docs/sdk.md", "frameworks/frameworks-openai-agents.test.ts"],
    ["Codex", "docs/coding-agents.md", "coding-agents/codex-app-server.test.ts"],
    ["Verifying the signature", "docs/webhooks.md", "gateway/webhooks/webhooks.test.ts"],
  ])("%s in %s is the code %s runs", (heading, page, file) => {
    expect(docSnippet(page, heading)).toEqual(testBlock(file, heading));
  });
});
