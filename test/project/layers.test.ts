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
  const roots = [...new Set(Object.keys(files).map((path) => path.split("/")[0]!))];
  const { output } = await cruise(
    roots,
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
    [
      "a bot importing its own platform's folder",
      { "bots/slack/a.ts": uses("../../src/platforms/slack/payload.ts"), "src/platforms/slack/payload.ts": uses("../kit/b.ts"), "src/platforms/kit/b.ts": LEAF },
      [],
    ],
    [
      "a bot importing another platform's folder",
      { "bots/slack/a.ts": uses("../../src/platforms/telegram/platform.ts"), "src/platforms/telegram/platform.ts": LEAF },
      ["bots-import-only-their-platform: bots/slack/a.ts → src/platforms/telegram/platform.ts"],
    ],
    [
      "a bot loading another platform's renderer through a barrel in src/render (issue 38)",
      {
        "bots/slack/a.ts": uses("../../src/render/index.ts"),
        "src/render/index.ts": `export * from "../platforms/renderers.ts";\n`,
        "src/platforms/renderers.ts": `export * from "./telegram/payload.ts";\n`,
        "src/platforms/telegram/payload.ts": LEAF,
      },
      [
        "bots-load-only-their-platform: bots/slack/a.ts → src/platforms/telegram/payload.ts",
        "render-reaches-no-platform-renderer: src/render/index.ts → src/platforms/telegram/payload.ts",
      ],
    ],
    [
      "a platform's folder importing another platform's",
      { "src/platforms/slack/payload.ts": uses("../telegram/escaping.ts"), "src/platforms/telegram/escaping.ts": LEAF },
      ["platforms-stay-apart: src/platforms/slack/payload.ts → src/platforms/telegram/escaping.ts"],
    ],
    [
      "the platform kit importing a platform",
      { "src/platforms/kit/a.ts": uses("../telegram/platform.ts"), "src/platforms/telegram/platform.ts": LEAF },
      ["platforms-stay-apart: src/platforms/kit/a.ts → src/platforms/telegram/platform.ts"],
    ],
    [
      "the bridge importing a platform's folder",
      { "src/bridge/a.ts": uses("../platforms/telegram/payload.ts"), "src/platforms/telegram/payload.ts": LEAF },
      [
        "bridge-reaches-no-platform-renderer: src/bridge/a.ts → src/platforms/telegram/payload.ts",
        "core-reads-platforms-through-the-registry: src/bridge/a.ts → src/platforms/telegram/payload.ts",
      ],
    ],
    [
      "the bridge reaching a platform's renderer through a file of src/platforms",
      { "src/bridge/a.ts": uses("../platforms/views.ts"), "src/platforms/views.ts": uses("./telegram/payload.ts"), "src/platforms/telegram/payload.ts": LEAF },
      ["bridge-reaches-no-platform-renderer: src/bridge/a.ts → src/platforms/telegram/payload.ts"],
    ],
    [
      "the bridge reading the platform descriptors",
      { "src/bridge/a.ts": uses("../platforms/descriptors.ts"), "src/platforms/descriptors.ts": uses("./telegram/platform.ts"), "src/platforms/telegram/platform.ts": LEAF },
      [],
    ],
  ])("%s", async (name, files, expected) => {
    expect(await violations(name, files)).toEqual(expected);
  });
});
