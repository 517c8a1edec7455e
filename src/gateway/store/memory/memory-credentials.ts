import type { Credential, CredentialStore } from "../kit/credentials.ts";

/** Credentials in this process only (STORE=memory): gone with it, like the questions. */
export function createMemoryCredentialStore(): CredentialStore {
  const rows = new Map<string, { credential: Credential; hash: string }>();
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
      return revoked;
    },
    async close() {},
  };
}
