/**
 * The layer rules of .dependency-cruiser.cjs (`npm run layers`) catch what they are for: each case cruises a tiny
 * tree written to a temporary folder, with the repository's own rules, and names the rules it breaks.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cruise, type ICruiseResult, type IConfiguration } from "dependency-cruiser";

const config = createRequire(import.meta.url)("../../.dependency-cruiser.cjs") as IConfiguration;
const scratch = mkdtempSync(join(tmpdir(), "layers-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The rules a tree of files (path → source) breaks, each with where, sorted. */
async function violations(name: string, files: Record<string, string>): Promise<string[]> {
  const baseDir = join(scratch, name.replace(/\W+/g, "-"));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(baseDir, path)), { recursive: true });
    writeFileSync(join(baseDir, path), source);
  }
  const { output } = await cruise(
    ["src"],
    { baseDir, validate: true, ruleSet: { forbidden: config.forbidden ?? [] }, parser: "swc", tsPreCompilationDeps: true },
    { extensions: [".ts"] },
  );
  return (output as ICruiseResult).summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} → ${to}`).sort();
}

const uses = (path: string) => `import { x } from "${path}";\nexport const y = x;\n`;
const LEAF = "export const x = 1;\n";

describe("the layer rules", () => {
  it.each<[string, Record<string, string>, string[]]>([
    [
      "a folder cycle between siblings",
      { "src/parse/a.ts": uses("../render/b.ts"), "src/render/b.ts": uses("../parse/c.ts"), "src/parse/c.ts": LEAF },
      ["no-folder-cycles: src/parse → src/render", "no-folder-cycles: src/render → src/parse"],
    ],
    [
      "a subfolder importing its parent (src/cli ↔ src/cli/mcp)",
      { "src/cli/main.ts": uses("./mcp/server.ts"), "src/cli/mcp/server.ts": uses("../args.ts"), "src/cli/args.ts": LEAF },
      ["subfolder-below-parent: src/cli/mcp/server.ts → src/cli/args.ts"],
    ],
    [
      "a parent using its subfolder",
      { "src/cli/main.ts": uses("./mcp/server.ts"), "src/cli/mcp/server.ts": uses("../../kernel/x.ts"), "src/kernel/x.ts": LEAF },
      [],
    ],
    ["a new file at the src/ root", { "src/helpers.ts": LEAF, "src/index.ts": LEAF }, ["no-new-root-files: src/helpers.ts → src/helpers.ts"]],
    ["the kernel importing up", { "src/kernel/x.ts": uses("../contract/text.ts"), "src/contract/text.ts": LEAF }, ["kernel-is-the-bottom: src/kernel/x.ts → src/contract/text.ts"]],
    [
      "the protocol importing a parser type",
      { "src/protocol/a.ts": `import type { x } from "../parse/b.ts";\nexport type Y = typeof x;\n`, "src/parse/b.ts": LEAF },
      ["protocol-not-to-parse-render: src/protocol/a.ts → src/parse/b.ts"],
    ],
    [
      "the store importing the client",
      { "src/gateway/store/a.ts": uses("../../client/b.ts"), "src/client/b.ts": LEAF },
      ["gateway-not-to-client: src/gateway/store/a.ts → src/client/b.ts"],
    ],
    [
      "the service importing the server",
      { "src/gateway/service/a.ts": uses("../server/b.ts"), "src/gateway/server/b.ts": LEAF },
      ["service-is-transport-free: src/gateway/service/a.ts → src/gateway/server/b.ts"],
    ],
    [
      "a store backend importing another backend",
      { "src/gateway/store/postgres/a.ts": uses("../sqlite/b.ts"), "src/gateway/store/sqlite/b.ts": uses("../kit/c.ts"), "src/gateway/store/kit/c.ts": LEAF },
      ["store-backends-stay-apart: src/gateway/store/postgres/a.ts → src/gateway/store/sqlite/b.ts"],
    ],
    [
      "a store backend importing the store's own files",
      { "src/gateway/store/open-stores.ts": uses("./memory/a.ts"), "src/gateway/store/memory/a.ts": uses("../types.ts"), "src/gateway/store/types.ts": LEAF },
      ["store-backends-stay-apart: src/gateway/store/memory/a.ts → src/gateway/store/types.ts", "subfolder-below-parent: src/gateway/store/memory/a.ts → src/gateway/store/types.ts"],
    ],
    [
      "the store kit importing a backend",
      { "src/gateway/store/kit/a.ts": uses("../memory/b.ts"), "src/gateway/store/memory/b.ts": LEAF },
      ["store-kit-is-the-store-bottom: src/gateway/store/kit/a.ts → src/gateway/store/memory/b.ts"],
    ],
  ])("%s", async (name, files, expected) => {
    expect(await violations(name, files)).toEqual(expected);
  });
});
