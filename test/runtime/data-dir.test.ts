/** DATA_DIR's modes (issue #24 item 9): what others could read is made private, the rest is left alone. */
import { chmodSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeModeChanges, tightenPrivateDir } from "../../src/runtime/data-dir.ts";
import { tempDir } from "../helpers/temp-dirs.ts";

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);
const dirs: string[] = [];
const fresh = () => {
  const dir = tempDir("aub-data-dir-");
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("tightenPrivateDir", () => {
  it("makes the directory 0700 and each named file that others can read 0600, and reports each old mode", () => {
    const dir = fresh();
    chmodSync(dir, 0o755);
    for (const [file, mode] of [["db", 0o644], ["db-wal", 0o666], ["token", 0o640], ["private", 0o600], ["read-only", 0o400], ["not-ours", 0o644]] as const) {
      writeFileSync(join(dir, file), "");
      chmodSync(join(dir, file), mode);
    }
    const changes = tightenPrivateDir(dir, ["db", "db-wal", "db-shm", "token", "private", "read-only"]);
    expect(changes).toEqual([
      { path: dir, from: 0o755, to: 0o700 },
      { path: join(dir, "db"), from: 0o644, to: 0o600 },
      { path: join(dir, "db-wal"), from: 0o666, to: 0o600 },
      { path: join(dir, "token"), from: 0o640, to: 0o600 },
    ]);
    expect([modeOf(dir), modeOf(join(dir, "db")), modeOf(join(dir, "db-wal")), modeOf(join(dir, "token"))]).toEqual(["700", "600", "600", "600"]);
    // Already private, and a file the gateway does not own: left as they are.
    expect([modeOf(join(dir, "private")), modeOf(join(dir, "read-only")), modeOf(join(dir, "not-ours"))]).toEqual(["600", "400", "644"]);
    expect(tightenPrivateDir(dir, ["db", "db-wal", "token"])).toEqual([]);
  });

  it("creates a missing directory 0700, and has nothing to report", () => {
    const dir = join(fresh(), "a", "b");
    expect(tightenPrivateDir(dir, ["db"])).toEqual([]);
    expect(modeOf(dir)).toBe("700");
  });
});

describe("describeModeChanges", () => {
  it("names each path with its old and new mode, and a change that failed with its error", () => {
    const line = describeModeChanges([
      { path: "/srv/data", from: 0o755, to: 0o700 },
      { path: "/srv/data/gateway-token", from: 0o644, to: 0o600, error: "EPERM" },
    ]);
    expect(line).not.toContain("\n");
    expect(line).toContain("/srv/data (was 755, now 700)");
    expect(line).toContain("/srv/data/gateway-token (is 644; could not make it 600: EPERM)");
  });
});
