import { wrongToken, type AuthBackoff } from "./auth-backoff.ts";
import { createTokenCheck } from "./auth.ts";
import { ADMIN, hashToken, principalFor, SCOPED_TOKEN_PATTERN, type Principal } from "./principal.ts";
import type { Credential, CredentialStore } from "./store.ts";

/**
 * A credential check's outcome. `retryAfterMs > 0`: a token that is not a live one, from an address that is locked
 * out. `revoked`: the token was a real one, revoked since (refused, but no wrong guess: it does not count against the
 * address; during a lockout it is refused as locked out, like any other).
 * `tokenHash`: a scoped token's hash, by which an open connection is checked again (see `recheck`).
 */
export type AuthVerdict =
  | { ok: true; principal: Principal; tokenHash?: string }
  | { ok: false; retryAfterMs: number; revoked?: boolean };

/**
 * How old a scoped credential's state may be when a request is let through: every HTTP request and every WebSocket
 * frame is checked against the store's answer of at most this long ago, and the server re-checks every open
 * connection's credential this often (closing the revoked). A revocation thus reaches every path, on every
 * instance, within about this long.
 */
export const CREDENTIAL_RECHECK_MS = 1_000;

export const REVOKED_MESSAGE = "this credential was revoked";

export interface CredentialCheckOptions {
  /** GATEWAY_TOKEN: the admin credential. */
  adminToken: string;
  backoff: AuthBackoff;
  /** Scoped credentials (`ask-user-bridge token create`); without it only the admin token is accepted. */
  credentials?: CredentialStore;
  now?: () => number;
  log?: (message: string, error?: unknown) => void;
}

/**
 * Who a presented token is: the admin token (checked in constant time, synchronously, so a `connect` frame with it
 * takes effect before the next frame is read), or a scoped token looked up by its hash (asynchronously, remembered
 * for CREDENTIAL_RECHECK_MS). The token is checked first, so a right one is never refused by the per-address
 * backoff; a wrong one from a locked-out address is refused as locked out, any other counts against its address.
 */
export function createCredentialCheck({ adminToken, backoff, credentials, now = Date.now, log }: CredentialCheckOptions) {
  const isAdmin = createTokenCheck(adminToken);
  const cache = new Map<string, { credential: Credential | undefined; until: number }>();

  /** Reads the credentials of these hashes whose cached state is older than CREDENTIAL_RECHECK_MS, in one query. */
  async function refresh(hashes: Iterable<string>): Promise<void> {
    const at = now();
    const stale = [...new Set(hashes)].filter((hash) => !((cache.get(hash)?.until ?? 0) > at));
    if (stale.length === 0) return;
    const found = await credentials!.findByHashes(stale);
    if (cache.size + stale.length > 10_000) cache.clear();
    for (const hash of stale) cache.set(hash, { credential: found.get(hash), until: at + CREDENTIAL_RECHECK_MS });
  }

  const live = (hash: string) => {
    const credential = cache.get(hash)?.credential;
    return credential !== undefined && credential.revokedAtMs === undefined;
  };

  const wrong = (address: string | undefined, presented: unknown): AuthVerdict => wrongToken(backoff, address, presented);

  function check(address: string | undefined, presented: unknown): AuthVerdict | Promise<AuthVerdict> {
    if (isAdmin(presented)) return { ok: true, principal: ADMIN };
    if (!credentials || typeof presented !== "string" || !SCOPED_TOKEN_PATTERN.test(presented)) return wrong(address, presented);
    const tokenHash = hashToken(presented);
    return refresh([tokenHash]).then(
      (): AuthVerdict => {
        const credential = cache.get(tokenHash)?.credential;
        if (!credential) return wrong(address, presented);
        if (credential.revokedAtMs !== undefined) {
          const retryAfterMs = backoff.retryAfterMs(address);
          return retryAfterMs > 0 ? { ok: false, retryAfterMs } : { ok: false, retryAfterMs: 0, revoked: true };
        }
        return { ok: true, principal: principalFor(credential), tokenHash };
      },
      (error): AuthVerdict => {
        // The store is unreachable: refuse, but a token that could not be checked is no guess.
        log?.("could not check a scoped token", error);
        return { ok: false, retryAfterMs: 0 };
      },
    );
  }

  return {
    check,
    /**
     * Whether the scoped token behind an open connection (by its hash) is still live, by the same rule as `check`:
     * the store's answer of at most CREDENTIAL_RECHECK_MS ago. A store that cannot answer keeps the last answer.
     */
    async stillLive(tokenHash: string): Promise<boolean> {
      await refresh([tokenHash]).catch((error: unknown) => log?.("could not re-check a scoped token", error));
      return live(tokenHash);
    },
    /** Re-checks many connections' tokens in one query; returns the hashes no longer live. */
    async revokedAmong(tokenHashes: Iterable<string>): Promise<Set<string>> {
      const hashes = [...tokenHashes];
      await refresh(hashes);
      return new Set(hashes.filter((hash) => !live(hash)));
    },
  };
}

export type CredentialCheck = ReturnType<typeof createCredentialCheck>;
