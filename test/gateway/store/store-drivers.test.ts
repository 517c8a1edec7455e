/**
 * The gateway loads only its backend's driver (openStores in src/gateway/store/open-stores.ts imports each backend
 * when it is chosen): without DATABASE_URL it never loads `pg`, with it never `better-sqlite3`, and in memory
 * neither. Proven on the real CLI process (dist/): a module.register resolve hook, preloaded with
 * NODE_OPTIONS=--import, appends every URL the process resolves to a file, and the test reads the packages off it
 * once the gateway is listening (its stores are open by then).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, freePort, spawnCli, spawnGateway, tempDir, TOKEN, waitForOutput } from "../../helpers/gateway.ts";
import { createTestDatabase, type TestDatabase } from "../../helpers/postgres.ts";

const databases: TestDatabase[] = [];
afterAll(async () => {
  await cleanup();
  await Promise.all(databases.map((db) => db.drop()));
});

const HOOKS = `import { appendFileSync } from "node:fs";
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, resolved.url + "\\n");
  return resolved;
}
`;

/** A NODE_OPTIONS that records every module the process resolves, and reads the packages among them. */
function recordResolved(): { nodeOptions: string; packages: () => Set<string> } {
  const dir = tempDir("aub-resolved-");
  const file = join(dir, "resolved.txt");
  writeFileSync(file, "");
  writeFileSync(join(dir, "hooks.mjs"), HOOKS);
  writeFileSync(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)}, { data: { file: ${JSON.stringify(file)} } });\n`,
  );
  return {
    nodeOptions: `--import=${pathToFileURL(join(dir, "register.mjs")).href}`,
    packages: () =>
      new Set(
        readFileSync(file, "utf8")
          .split("\n")
          .flatMap((url) => url.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1] ?? []),
      ),
  };
}

const DRIVERS = ["better-sqlite3", "pg"] as const;
type Backend = "memory" | "sqlite" | "postgres";

async function backendEnv(backend: Backend): Promise<Record<string, string>> {
  if (backend === "memory") return { STORE: "memory" };
  if (backend === "sqlite") return { STORE: "sqlite" };
  const db = await createTestDatabase();
  databases.push(db);
  return { DATABASE_URL: db.url };
}

describe("the gateway loads only its backend's driver", () => {
  it.each<[string, Backend, readonly (typeof DRIVERS)[number][]]>([
    ["gateway", "memory", []],
    ["gateway", "sqlite", ["better-sqlite3"]],
    ["gateway", "postgres", ["pg"]],
    ["start", "sqlite", ["better-sqlite3"]],
  ])("`%s` with the %s store loads %j", async (command, backend, expected) => {
    const recorder = recordResolved();
    const env = { DATA_DIR: tempDir(), GATEWAY_PORT: String(await freePort()), NODE_OPTIONS: recorder.nodeOptions, ...(await backendEnv(backend)) };
    let stop: () => Promise<void>;
    if (command === "gateway") {
      const gateway = await spawnGateway(env);
      stop = () => gateway.kill();
    } else {
      const run = spawnCli([command], { GATEWAY_TOKEN: TOKEN, ...env });
      await waitForOutput(run, /listening on http:\/\//);
      stop = async () => {
        run.child.kill("SIGKILL");
        await run.exited;
      };
    }
    try {
      const packages = recorder.packages();
      // The recorder works: the gateway's own dependencies are in it.
      expect(packages).toContain("ws");
      expect(DRIVERS.filter((driver) => packages.has(driver))).toEqual(expected);
    } finally {
      await stop();
    }
  });
});
