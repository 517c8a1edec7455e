/**
 * Data at rest (issue #17 §4), against the real gateway process: a DATA_DIR it creates is 0700 and every file in
 * it (the SQLite database, its -wal and -shm, the generated token) is 0600; an existing DATA_DIR that others can
 * read is named in a warning at start-up; an existing world-readable database file is made owner-only.
 */
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { cleanup, freePort, oneQuestion, rpcOk, spawnGateway, tempDir } from "../helpers/gateway.ts";

const modeOf = (path: string) => statSync(path).mode & 0o777;

afterAll(cleanup);

describe("data at rest", () => {
  it("creates DATA_DIR 0700 and every file in it 0600", async () => {
    const dataDir = join(tempDir(), "nested", "data");
    // No GATEWAY_TOKEN: the gateway generates one and saves it under DATA_DIR.
    const gateway = await spawnGateway({ DATA_DIR: dataDir, GATEWAY_TOKEN: "", GATEWAY_PORT: String(await freePort()) });
    const token = readFileSync(join(dataDir, "gateway-token"), "utf8").trim();
    const res = await fetch(`${gateway.url}/rpc/question.request`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(oneQuestion()),
    });
    expect(res.status).toBe(200);
    expect(modeOf(dataDir)).toBe(0o700);
    const files = readdirSync(dataDir);
    expect(files).toEqual(expect.arrayContaining(["gateway-token", "ask-user-bridge.sqlite", "ask-user-bridge.sqlite-wal", "ask-user-bridge.sqlite-shm"]));
    for (const file of files) expect([file, modeOf(join(dataDir, file)).toString(8)]).toEqual([file, "600"]);
    await gateway.kill("SIGTERM");
  });

  it("warns, naming the path, when an existing DATA_DIR is readable by others, and makes its database owner-only", async () => {
    const dataDir = tempDir();
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, "ask-user-bridge.sqlite"), "", { mode: 0o644 });
    chmodSync(join(dataDir, "ask-user-bridge.sqlite"), 0o644);
    const gateway = await spawnGateway({ DATA_DIR: dataDir, GATEWAY_PORT: String(await freePort()) });
    expect(gateway.run.stdout() + gateway.run.stderr()).toContain(`DATA_DIR ${dataDir} is readable by other users (mode 755)`);
    await rpcOk(gateway.url, "question.list", {});
    expect(modeOf(dataDir)).toBe(0o755); // the owner's decision: warned about, not changed
    expect(modeOf(join(dataDir, "ask-user-bridge.sqlite"))).toBe(0o600);
    await gateway.kill("SIGTERM");
  });

  it("says nothing about a private DATA_DIR", async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, "inner"), { mode: 0o700 });
    chmodSync(dataDir, 0o700);
    const gateway = await spawnGateway({ DATA_DIR: dataDir, GATEWAY_PORT: String(await freePort()) });
    expect(gateway.run.stdout() + gateway.run.stderr()).not.toContain("readable by other users");
    await gateway.kill("SIGTERM");
  });
});
