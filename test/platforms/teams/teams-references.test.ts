import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baseConversationId, createTeamsReferenceStore, TEAMS_REFERENCES_DIR, threadRootOf, type TeamsReference } from "../../../bots/teams/references.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";

const channel = (id: string, serviceUrl = "https://smba.trafficmanager.net/emea/"): TeamsReference => ({
  serviceUrl,
  channelId: "msteams",
  conversation: { id, conversationType: "channel", tenantId: "t" },
  bot: { id: "28:app" },
  capturedAtMs: 1,
});

describe("teams: conversation references in DATA_DIR", () => {
  it("one owner-only file per key, written atomically; a personal chat is filed under its person too", () => {
    const dir = tempDir("aub-teams-refs-");
    const store = createTeamsReferenceStore(dir, () => {});
    expect(store.remember(channel("19:a@thread.tacv2"))).toEqual(["19:a@thread.tacv2"]);
    expect(store.remember({ ...channel("19:a@thread.tacv2"), capturedAtMs: 2 })).toEqual([]); // unchanged: not written again
    const personal: TeamsReference = { ...channel("a:1xyz"), conversation: { id: "a:1xyz", conversationType: "personal" }, user: { id: "29:1", aadObjectId: "0a0a0a0a-0000-4000-8000-00000000ada1" } };
    expect(store.remember(personal)).toEqual(["a:1xyz", "0a0a0a0a-0000-4000-8000-00000000ada1"]);
    const files = readdirSync(join(dir, TEAMS_REFERENCES_DIR));
    expect(files).toHaveLength(3);
    expect(files.every((f) => /^[0-9a-f]{40}\.json$/.test(f))).toBe(true);
    for (const f of files) expect(statSync(join(dir, TEAMS_REFERENCES_DIR, f)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, TEAMS_REFERENCES_DIR)).mode & 0o777).toBe(0o700);
    expect(store.find("0a0a0a0a-0000-4000-8000-00000000ada1")?.conversation.id).toBe("a:1xyz");
  });

  it("another process's store finds what this one kept, and a changed serviceUrl replaces the old one", () => {
    const dir = tempDir("aub-teams-refs-");
    const one = createTeamsReferenceStore(dir, () => {});
    const two = createTeamsReferenceStore(dir, () => {});
    one.remember(channel("19:b@thread.tacv2"));
    expect(two.find("19:b@thread.tacv2")?.serviceUrl).toBe("https://smba.trafficmanager.net/emea/");
    two.remember(channel("19:b@thread.tacv2", "https://smba.trafficmanager.net/amer/"));
    expect(createTeamsReferenceStore(dir, () => {}).find("19:b@thread.tacv2")?.serviceUrl).toBe("https://smba.trafficmanager.net/amer/");
  });

  it("keepOrigin (a token naming no service URL): a known reference keeps its origin, a new one is kept, a same-origin change is taken", () => {
    const dir = tempDir("aub-teams-refs-");
    const logged: string[] = [];
    const store = createTeamsReferenceStore(dir, (m) => logged.push(m));
    store.remember(channel("19:d@thread.tacv2"));
    expect(store.remember(channel("19:d@thread.tacv2", "https://attacker.example/"), { keepOrigin: true })).toEqual([]);
    expect(createTeamsReferenceStore(dir, () => {}).find("19:d@thread.tacv2")?.serviceUrl).toBe("https://smba.trafficmanager.net/emea/");
    expect(logged.join("\n")).toMatch(/cannot move it to https:\/\/attacker\.example/u);
    store.remember(channel("19:d@thread.tacv2", "https://smba.trafficmanager.net/amer/"), { keepOrigin: true });
    expect(store.find("19:d@thread.tacv2")?.serviceUrl).toBe("https://smba.trafficmanager.net/amer/");
    expect(store.remember(channel("19:e@thread.tacv2", "https://smba.trafficmanager.net/amer/"), { keepOrigin: true })).toEqual(["19:e@thread.tacv2"]);
  });

  it("a damaged file is no reference (and is logged), never a crash", () => {
    const dir = tempDir("aub-teams-refs-");
    const logged: string[] = [];
    const store = createTeamsReferenceStore(dir, (m) => logged.push(m));
    store.remember(channel("19:c@thread.tacv2"));
    const [file] = readdirSync(join(dir, TEAMS_REFERENCES_DIR));
    writeFileSync(join(dir, TEAMS_REFERENCES_DIR, file!), "{not json");
    expect(createTeamsReferenceStore(dir, (m) => logged.push(m)).find("19:c@thread.tacv2")).toBeUndefined();
    expect(logged.some((m) => m.includes("19:c@thread.tacv2"))).toBe(true);
    expect(readFileSync(join(dir, TEAMS_REFERENCES_DIR, file!), "utf8")).toBe("{not json");
  });

  it("a channel thread's conversation id names the channel and the thread's root", () => {
    expect(baseConversationId("19:x@thread.tacv2;messageid=1700")).toBe("19:x@thread.tacv2");
    expect(threadRootOf("19:x@thread.tacv2;messageid=1700")).toBe("1700");
    expect(threadRootOf("19:x@thread.tacv2")).toBeUndefined();
  });
});
