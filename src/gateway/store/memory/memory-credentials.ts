import type { Credential, CredentialStore, FoundSession, StoredSession } from "../kit/credentials.ts";

/** Credentials in this process only (STORE=memory): gone with it, like the questions. */
export function createMemoryCredentialStore(): CredentialStore {
  const rows = new Map<string, { credential: Credential; hash: string }>();
  const sessions = new Map<string, StoredSession>();
  const withCredential = (s: StoredSession): FoundSession => {
    const row = s.who.kind === "credential" ? rows.get(s.who.credentialId) : undefined;
    return { ...s, who: { ...s.who }, ...(row ? { credential: { ...row.credential, tokenHash: row.hash } } : {}) };
  };
  const live = (c: Credential) => c.revokedAtMs === undefined;
  return {
    async add(credential, tokenHash) {
      // As the SQL stores' PRIMARY KEY and UNIQUE constraints do.
      if (rows.has(credential.id)) throw new Error(`a credential with id ${credential.id} already exists`);
      if ([...rows.values()].some((row) => row.hash === tokenHash)) throw new Error("a credential with this token hash already exists");
      rows.set(credential.id, { credential: { ...credential }, hash: tokenHash });
    },
    async findByHashes(tokenHashes) {
      const wanted = new Set(tokenHashes);
      const found = new Map<string, Credential>();
      for (const { credential, hash } of rows.values()) if (wanted.has(hash)) found.set(hash, { ...credential });
      return found;
    },
    async list() {
      return [...rows.values()]
        .map(({ credential }) => ({ ...credential }))
        .sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async revoke(idOrName, nowMs) {
      const revoked: Credential[] = [];
      for (const row of rows.values()) {
        if (live(row.credential) && (row.credential.id === idOrName || row.credential.name === idOrName)) {
          row.credential.revokedAtMs = nowMs;
          revoked.push({ ...row.credential });
        }
      }
      const ended = new Set(revoked.map((c) => c.id));
      for (const [idHash, s] of sessions) if (s.who.kind === "credential" && ended.has(s.who.credentialId)) sessions.delete(idHash);
      return revoked;
    },
    sessions: {
      async add(idHash, session) {
        if (sessions.has(idHash)) throw new Error("a session with this id hash already exists");
        sessions.set(idHash, { ...session, who: { ...session.who } });
      },
      async find(idHashes) {
        const found = new Map<string, FoundSession>();
        for (const idHash of idHashes) {
          const s = sessions.get(idHash);
          if (s) found.set(idHash, withCredential(s));
        }
        return found;
      },
      async touch(idHash, lastUsedAtMs) {
        const s = sessions.get(idHash);
        if (s && s.lastUsedAtMs < lastUsedAtMs) s.lastUsedAtMs = lastUsedAtMs;
      },
      async delete(idHash) {
        sessions.delete(idHash);
      },
      async prune(idleBeforeMs, createdBeforeMs) {
        let n = 0;
        for (const [idHash, s] of sessions) {
          if (s.lastUsedAtMs <= idleBeforeMs || s.createdAtMs <= createdBeforeMs) n += Number(sessions.delete(idHash));
        }
        return n;
      },
    },
    async close() {},
  };
}
