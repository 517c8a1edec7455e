/**
 * Data at rest (issue #17 §4, issue #24 item 9), against the real gateway process: a DATA_DIR it creates is 0700 and
 * every file in it (the SQLite database, its -wal and -shm, the generated token) is 0600. What an earlier release
 * left readable by others (the directory 0755, the database, its WAL, which holds question text, its -shm and
 * -journal, the token file 0644) is made 0700 and 0600 at start, in one warning naming each path and its old mode;
 * a start with everything already private says nothing.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnGatewayProcess, type ChildGateway } from "../helpers/cli.ts";
import { cleanup, freePort, oneQuestion, rpc, rpcOk, spawnGateway, tempDir } from "../helpers/gateway.ts";

const modeOf = (path: string) => statSync(path).mode & 0o777;
const DB = "ask-user-bridge.sqlite";
/** Every file the gateway keeps in DATA_DIR. */
const GATEWAY_FILES = [DB, `${DB}-wal`, `${DB}-shm`, `${DB}-journal`, "gateway-token"];

/** The warn lines a gateway wrote (JSON lines on stdout). */
const warnings = (gateway: ChildGateway) =>
  gateway.run
    .stdout()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: string; msg: string })
    .filter((line) => line.level === "warn");

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

  it("makes what an earlier release left readable by others private at start, in one warning naming each path and its old mode", async () => {
    const dataDir = tempDir();
    // An earlier start without GATEWAY_TOKEN: the token file, and a question whose text is still in the WAL when the
    // process dies.
    const earlier = await spawnGatewayProcess({ DATA_DIR: dataDir, GATEWAY_PORT: String(await freePort()) });
    const token = readFileSync(join(dataDir, "gateway-token"), "utf8").trim();
    const asked = await rpc(earlier.url, "question.request", oneQuestion(), { token });
    if (!asked.body.ok) throw new Error(asked.body.error.code);
    await earlier.kill("SIGKILL");
    expect(existsSync(join(dataDir, `${DB}-wal`))).toBe(true);
    // As that release left them: every file 0644, the directory 0755 (and a stale rollback journal).
    writeFileSync(join(dataDir, `${DB}-journal`), "");
    for (const file of GATEWAY_FILES) chmodSync(join(dataDir, file), 0o644);
    chmodSync(dataDir, 0o755);

    const gateway = await spawnGatewayProcess({ DATA_DIR: dataDir, GATEWAY_PORT: String(await freePort()) });
    expect(modeOf(dataDir).toString(8)).toBe("700");
    for (const file of GATEWAY_FILES) expect([file, modeOf(join(dataDir, file)).toString(8)]).toEqual([file, "600"]);
    const lines = warnings(gateway).filter((line) => line.msg.includes("DATA_DIR"));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toContain(`${dataDir} (was 755, now 700)`);
    for (const file of GATEWAY_FILES) expect(lines[0]!.msg).toContain(`${join(dataDir, file)} (was 644, now 600)`);
    // Nothing was lost: the question asked before is there, with the same token.
    const kept = await rpc(gateway.url, "question.get", { id: asked.body.payload.id }, { token });
    expect(kept.body).toMatchObject({ ok: true, payload: { status: "pending" } });
    await gateway.kill("SIGTERM");

    // The next start finds everything private already, and says nothing.
    const next = await spawnGatewayProcess({ DATA_DIR: dataDir, GATEWAY_PORT: String(await freePort()) });
    await rpc(next.url, "question.list", {}, { token });
    expect(warnings(next)).toEqual([]);
    expect(next.run.stdout() + next.run.stderr()).not.toContain("was 644");
    await next.kill("SIGTERM");
  }, 60_000);

  it("says nothing about a private DATA_DIR", async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, "inner"), { mode: 0o700 });
    chmodSync(dataDir, 0o700);
    const gateway = await spawnGateway({ DATA_DIR: dataDir, GATEWAY_PORT: String(await freePort()) });
    await rpcOk(gateway.url, "question.list", {});
    expect(warnings(gateway)).toEqual([]);
    expect(modeOf(dataDir)).toBe(0o700);
    await gateway.kill("SIGTERM");
  });
});
