/**
 * Each bot loads only its own platform (issue 38 §3): the module graph of each built bot (dist/bots/<platform>/index.js,
 * as `node` loads it, walked by dependency-cruiser) holds its own platform's renderers and none of another's. Another
 * platform appears only as the registry's descriptor (platform.js, surface.js, escaping.js, loaded by
 * src/platforms/{descriptors,surfaces,index}.js), which every layer reads: the parser's credential shapes, the
 * layouts' button limits. The public `render` export keeps only the generic renderers.
 */
import { describe, expect, it } from "vitest";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import { render } from "../../src/index.ts";
import { PLATFORM_NAMES } from "../../src/platforms/index.ts";
import { ROOT } from "../helpers/cli.ts";

const PLATFORM_FILE = /^dist\/src\/platforms\/(?!kit\/)([^/]+)\/([^/]+)\.js$/;
/** What the registry loads of every platform: its descriptor. */
const DESCRIPTOR_FILES = ["platform", "surface", "escaping"];
/** The registry's files, the only ones outside a platform's folder that load its descriptor. */
const REGISTRY = /^dist\/src\/platforms\/(descriptors|surfaces|index)\.js$/;

/** Each module of the built bot's graph (path from the repository root) with the modules that import it. */
async function botGraph(platform: string): Promise<Map<string, string[]>> {
  const { output } = await cruise([`dist/bots/${platform}/index.js`], { baseDir: ROOT, doNotFollow: { path: "node_modules" } });
  const importers = new Map<string, string[]>();
  for (const module of (output as ICruiseResult).modules) {
    if (!importers.has(module.source)) importers.set(module.source, []);
    for (const { resolved } of module.dependencies) importers.set(resolved, [...(importers.get(resolved) ?? []), module.source]);
  }
  return importers;
}

describe("each bot loads only its own platform", () => {
  it.each(PLATFORM_NAMES)("dist/bots/%s/index.js", async (platform) => {
    const graph = await botGraph(platform);
    const platformFiles = [...graph.keys()].flatMap((path) => {
      const match = PLATFORM_FILE.exec(path);
      return match ? [{ path, platform: match[1]!, file: match[2]! }] : [];
    });
    // The walk sees the bot's own renderers (so an empty graph cannot pass).
    expect(platformFiles.filter((f) => f.platform === platform).map((f) => f.file)).toContain("payload");

    const others = platformFiles.filter((f) => f.platform !== platform);
    expect(others.filter((f) => !DESCRIPTOR_FILES.includes(f.file)).map((f) => f.path)).toEqual([]);
    // … and those descriptors come in through the registry, not through an import of the bot's own.
    const foreignImporters = others.flatMap((f) => graph.get(f.path)!.filter((from) => !REGISTRY.test(from) && !from.startsWith(`dist/src/platforms/${f.platform}/`)));
    expect(foreignImporters).toEqual([]);
  }, 60_000);
});

describe("the public render export", () => {
  it("holds only the generic renderers: no name of a platform's own", () => {
    const named = Object.keys(render).filter((name) => PLATFORM_NAMES.some((platform) => name.toLowerCase().includes(platform)));
    expect(named).toEqual([]);
    expect(render).not.toHaveProperty("approvalShownWhole");
    expect(render).toHaveProperty("renderPromptText");
  });
});
