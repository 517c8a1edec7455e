#!/usr/bin/env node
// `prepack` / `postpack`: the packed package.json without the scripts that only work in this repository (`prepare`
// builds from the TypeScript sources; `test`, `typecheck`, `bench`, `screenshots` and `layers` need the dev dependencies
// and the test, bench and scripts folders, none of which ship), nor these two hooks. `clean` keeps the repository's manifest beside it (.package.json.prepack,
// git-ignored) and writes the cleaned one; `restore` puts the kept one back. A `clean` after a pack that failed before
// its `postpack` restores first, so the kept manifest is always the repository's own.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = join(root, "package.json");
const kept = join(root, ".package.json.prepack");
/** The scripts left out of the packed manifest. */
export const REPOSITORY_ONLY_SCRIPTS = ["prepare", "test", "typecheck", "bench", "screenshots", "layers", "prepack", "postpack"];

function restore() {
  if (existsSync(kept)) renameSync(kept, manifest);
}

function clean() {
  restore();
  const text = readFileSync(manifest, "utf8");
  const packed = JSON.parse(text);
  for (const name of REPOSITORY_ONLY_SCRIPTS) delete packed.scripts?.[name];
  writeFileSync(kept, text);
  writeFileSync(manifest, `${JSON.stringify(packed, null, 2)}\n`);
}

const step = process.argv[2];
if (step === "clean") clean();
else if (step === "restore") restore();
else {
  console.error("usage: node scripts/pack-manifest.mjs clean|restore");
  process.exit(2);
}
