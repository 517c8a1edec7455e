/**
 * The one credential-store contract suite, run against every backend (memory and SQLite in
 * test/gateway/store/credential-store.test.ts, PostgreSQL in test/gateway/store/credential-store-postgres.test.ts), as test/gateway/store/store-contract.ts is
 * for the question stores.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashToken } from "../../../src/gateway/auth/principal.ts";
import { ROLES, type Credential, type CredentialStore, type FoundSession, type StoredSession } from "../../../src/gateway/store/kit/credentials.ts";

/** One credential store under test. */
export interface CredentialStoreHarness {
  store: CredentialStore;
  /** Closes the store and opens it again on the same data (durable stores only). */
  reopen?: () => Promise<CredentialStore>;
  /** A second store on the same data, as the `token` command or another gateway instance opens it (shared stores only). */
  openAnother?: () => Promise<CredentialStore>;
  cleanup: () => Promise<void>;
}

const credential = (id: string, overrides: Partial<Credential> = {}): Credential => ({ id, name: `name-${id}`, role: "agent", createdAtMs: 1_000, ...overrides });
const tokenHash = (id: string) => hashToken(`aub_token-of-${id}`);
const byId = (credentials: Credential[]) => [...credentials].sort((a, b) => (a.id < b.id ? -1 : 1));

export function runCredentialStoreContract(name: string, open: () => Promise<CredentialStoreHarness>): void {
  describe(`CredentialStore contract: ${name}`, () => {
    let harness: CredentialStoreHarness;
    let store: CredentialStore;
    beforeEach(async () => {
      harness = await open();
      store = harness.store;
    });
    afterEach(() => harness.cleanup());

    /** Adds each credential with its own token hash. */
    const add = async (...credentials: Credential[]) => {
      for (const c of credentials) await store.add(c, tokenHash(c.id));
    };

    describe("add and findByHashes", () => {
      it("finds a credential it added by its token hash, and by nothing else", async () => {
        await add(credential("a", { name: "ci agent", createdAtMs: 1_234 }));
        expect(await store.findByHashes([tokenHash("a")])).toStrictEqual(new Map([[tokenHash("a"), credential("a", { name: "ci agent", createdAtMs: 1_234 })]]));
        expect((await store.findByHashes([tokenHash("b"), "a", "ci agent", hashToken("aub_token-of-a ")])).size).toBe(0);
      });

      it("finds several in one call, keyed by hash, and leaves the unknown hashes out", async () => {
        await add(credential("a"), credential("b"), credential("c"));
        const found = await store.findByHashes([tokenHash("c"), hashToken("unknown"), tokenHash("a")]);
        expect(found).toStrictEqual(new Map([[tokenHash("a"), credential("a")], [tokenHash("c"), credential("c")]]));
      });

      it("finds nothing for no hashes", async () => {
        await add(credential("a"));
        expect(await store.findByHashes([])).toStrictEqual(new Map());
      });

      it.each(ROLES.map((role) => [role]))("keeps the role %s", async (role) => {
        await add(credential("a", { role }));
        expect((await store.findByHashes([tokenHash("a")])).get(tokenHash("a"))?.role).toBe(role);
      });

      it("refuses a duplicate token hash and keeps the first credential", async () => {
        await store.add(credential("a", { name: "first" }), tokenHash("shared"));
        await expect(store.add(credential("b", { name: "second" }), tokenHash("shared"))).rejects.toThrow();
        expect(await store.list()).toStrictEqual([credential("a", { name: "first" })]);
        expect((await store.findByHashes([tokenHash("shared")])).get(tokenHash("shared"))?.id).toBe("a");
      });

      it("refuses a duplicate id and keeps the first credential", async () => {
        await add(credential("a", { name: "first" }));
        await expect(store.add(credential("a", { name: "second" }), tokenHash("other"))).rejects.toThrow();
        expect(await store.list()).toStrictEqual([credential("a", { name: "first" })]);
        expect((await store.findByHashes([tokenHash("other")])).size).toBe(0);
      });
    });

    describe("revoke", () => {
      it("revokes by id and returns what it revoked; findByHashes still finds it, with revokedAtMs", async () => {
        await add(credential("a"), credential("b"));
        expect(await store.revoke("a", 5_000)).toStrictEqual([credential("a", { revokedAtMs: 5_000 })]);
        const found = await store.findByHashes([tokenHash("a"), tokenHash("b")]);
        expect(found.get(tokenHash("a"))).toStrictEqual(credential("a", { revokedAtMs: 5_000 }));
        expect(found.get(tokenHash("b"))).toStrictEqual(credential("b"));
      });

      it("revokes by name every live credential of that name, and no other", async () => {
        await add(credential("a", { name: "ci" }), credential("b", { name: "ci", role: "bot:slack" }), credential("c", { name: "other" }));
        expect(byId(await store.revoke("ci", 5_000))).toStrictEqual([
          credential("a", { name: "ci", revokedAtMs: 5_000 }),
          credential("b", { name: "ci", role: "bot:slack", revokedAtMs: 5_000 }),
        ]);
        expect((await store.findByHashes([tokenHash("c")])).get(tokenHash("c"))).toStrictEqual(credential("c", { name: "other" }));
      });

      it("revokes nothing a second time, and keeps the first revocation's time", async () => {
        await add(credential("a"));
        await store.revoke("a", 5_000);
        expect(await store.revoke("a", 6_000)).toStrictEqual([]);
        expect(await store.revoke("name-a", 6_000)).toStrictEqual([]);
        expect((await store.findByHashes([tokenHash("a")])).get(tokenHash("a"))?.revokedAtMs).toBe(5_000);
      });

      it("revokes by name only the live ones, as `start` does when it makes its bots' credentials afresh", async () => {
        await add(credential("old", { name: "start:telegram" }));
        await store.revoke("start:telegram", 5_000);
        await add(credential("new", { name: "start:telegram", createdAtMs: 5_000 }));
        expect(await store.revoke("start:telegram", 9_000)).toStrictEqual([credential("new", { name: "start:telegram", createdAtMs: 5_000, revokedAtMs: 9_000 })]);
        expect((await store.findByHashes([tokenHash("old")])).get(tokenHash("old"))?.revokedAtMs).toBe(5_000);
      });

      it("revokes nothing for an unknown id or name", async () => {
        await add(credential("a"));
        expect(await store.revoke("nope", 5_000)).toStrictEqual([]);
        expect(await store.list()).toStrictEqual([credential("a")]);
      });
    });

    describe("list", () => {
      it("is empty at first", async () => {
        expect(await store.list()).toStrictEqual([]);
      });

      it("lists every credential, revoked ones included, oldest first and by id among equals", async () => {
        await add(credential("b", { createdAtMs: 2_000 }), credential("d", { createdAtMs: 3_000 }), credential("c", { createdAtMs: 1_000 }), credential("a", { createdAtMs: 2_000 }));
        await store.revoke("d", 4_000);
        expect(await store.list()).toStrictEqual([
          credential("c", { createdAtMs: 1_000 }),
          credential("a", { createdAtMs: 2_000 }),
          credential("b", { createdAtMs: 2_000 }),
          credential("d", { createdAtMs: 3_000, revokedAtMs: 4_000 }),
        ]);
      });
    });

    describe("close", () => {
      it("closes; a durable store opened again has every credential and revocation", async () => {
        await add(credential("a"), credential("b", { createdAtMs: 2_000 }));
        await store.revoke("b", 5_000);
        if (!harness.reopen) {
          await expect(store.close()).resolves.toBeUndefined();
          return;
        }
        store = await harness.reopen();
        expect(await store.list()).toStrictEqual([credential("a"), credential("b", { createdAtMs: 2_000, revokedAtMs: 5_000 })]);
        expect((await store.findByHashes([tokenHash("b")])).get(tokenHash("b"))?.revokedAtMs).toBe(5_000);
      });
    });

    describe("two stores on the same data", () => {
      it("see each other's credentials and revocations", async ({ skip }) => {
        if (!harness.openAnother) return skip("not a shared store");
        const other = await harness.openAnother();
        await add(credential("a"));
        expect((await other.findByHashes([tokenHash("a")])).get(tokenHash("a"))).toStrictEqual(credential("a"));
        expect(await other.revoke("a", 5_000)).toStrictEqual([credential("a", { revokedAtMs: 5_000 })]);
        expect((await store.findByHashes([tokenHash("a")])).get(tokenHash("a"))?.revokedAtMs).toBe(5_000);
        expect(await store.revoke("a", 6_000)).toStrictEqual([]);
        await other.add(credential("b", { createdAtMs: 2_000 }), tokenHash("b"));
        expect(await store.list()).toStrictEqual(await other.list());
        expect((await store.list()).map((c) => c.id)).toStrictEqual(["a", "b"]);
      });

      it("refuse a token hash the other one added", async ({ skip }) => {
        if (!harness.openAnother) return skip("not a shared store");
        const other = await harness.openAnother();
        await add(credential("a"));
        await expect(other.add(credential("b"), tokenHash("a"))).rejects.toThrow();
        expect((await store.list()).map((c) => c.id)).toStrictEqual(["a"]);
      });

      it("share sessions: one signed in on either is found, slid and ended on the other", async ({ skip }) => {
        if (!harness.openAnother) return skip("not a shared store");
        const other = await harness.openAnother();
        await add(credential("p", { role: "person", name: "alice" }));
        await store.sessions.add("s1", personSession("p"));
        expect((await other.sessions.find(["s1"])).get("s1")).toMatchObject({ who: { kind: "credential", credentialId: "p" }, credential: { name: "alice" } });
        await other.sessions.touch("s1", 9_000);
        expect((await store.sessions.find(["s1"])).get("s1")?.lastUsedAtMs).toBe(9_000);
        await other.sessions.delete("s1");
        expect((await store.sessions.find(["s1"])).size).toBe(0);
      });
    });

    describe("sessions", () => {
      const admin = (createdAtMs = 1_000, lastUsedAtMs = createdAtMs): StoredSession => ({ who: { kind: "admin", tag: "tag-1" }, createdAtMs, lastUsedAtMs });

      it("finds a session by its id hash, the admin's with its tag and a person's with its credential and token hash", async () => {
        await add(credential("p", { role: "person", name: "alice", createdAtMs: 500 }));
        await store.sessions.add("h-admin", admin());
        await store.sessions.add("h-alice", personSession("p"));
        const found = await store.sessions.find(["h-alice", "h-admin", "h-unknown"]);
        expect(found).toStrictEqual(
          new Map<string, FoundSession>([
            ["h-alice", { ...personSession("p"), credential: { ...credential("p", { role: "person", name: "alice", createdAtMs: 500 }), tokenHash: tokenHash("p") } }],
            ["h-admin", admin()],
          ]),
        );
        expect((await store.sessions.find([])).size).toBe(0);
      });

      it("refuses a duplicate id hash and keeps the first session", async () => {
        await store.sessions.add("h", admin(1_000));
        await expect(store.sessions.add("h", admin(2_000))).rejects.toThrow();
        expect((await store.sessions.find(["h"])).get("h")?.createdAtMs).toBe(1_000);
      });

      it("moves last use forward only, and deletes one session, leaving the others", async () => {
        await store.sessions.add("a", admin(1_000));
        await store.sessions.add("b", admin(1_000));
        await store.sessions.touch("a", 5_000);
        await store.sessions.touch("a", 4_000);
        await store.sessions.touch("unknown", 4_000);
        expect((await store.sessions.find(["a"])).get("a")?.lastUsedAtMs).toBe(5_000);
        await store.sessions.delete("a");
        await store.sessions.delete("unknown");
        expect([...(await store.sessions.find(["a", "b"])).keys()]).toStrictEqual(["b"]);
      });

      it("keeps a session whose credential is gone or revoked, with the credential as it is (the check refuses it)", async () => {
        await add(credential("p", { role: "person", name: "alice" }));
        await store.sessions.add("gone", personSession("nobody"));
        expect((await store.sessions.find(["gone"])).get("gone")).toStrictEqual(personSession("nobody"));
        await store.sessions.add("kept", personSession("p"));
        await store.revoke("p", 7_000);
        // Revoking a credential ends its sessions too.
        expect((await store.sessions.find(["kept"])).size).toBe(0);
      });

      it("revoking one credential ends its sessions only", async () => {
        await add(credential("p", { role: "person", name: "alice" }), credential("q", { role: "person", name: "bob" }));
        await store.sessions.add("alice-1", personSession("p"));
        await store.sessions.add("alice-2", personSession("p"));
        await store.sessions.add("bob-1", personSession("q"));
        await store.sessions.add("admin-1", admin());
        await store.revoke("alice", 7_000);
        expect([...(await store.sessions.find(["alice-1", "alice-2", "bob-1", "admin-1"])).keys()].sort()).toStrictEqual(["admin-1", "bob-1"]);
      });

      it("prunes the sessions idle since, or created at or before, the given times", async () => {
        await store.sessions.add("idle", admin(5_000, 6_000));
        await store.sessions.add("old", admin(1_000, 9_000));
        await store.sessions.add("fresh", admin(5_000, 9_000));
        expect(await store.sessions.prune(6_000, 1_000)).toBe(2);
        expect([...(await store.sessions.find(["idle", "old", "fresh"])).keys()]).toStrictEqual(["fresh"]);
        expect(await store.sessions.prune(6_000, 1_000)).toBe(0);
      });

      it("keeps sessions across a reopen (durable stores)", async ({ skip }) => {
        if (!harness.reopen) return skip("not a durable store");
        await store.sessions.add("h", admin(1_000, 2_000));
        store = await harness.reopen();
        expect((await store.sessions.find(["h"])).get("h")).toStrictEqual(admin(1_000, 2_000));
      });
    });
  });
}

const personSession = (credentialId: string): StoredSession => ({ who: { kind: "credential", credentialId }, createdAtMs: 1_000, lastUsedAtMs: 1_000 });
