import type { AuthBackoff } from "../auth-backoff.ts";
import { createTokenCheck } from "../auth.ts";
import { ADMIN, hashToken, principalFor, SCOPED_TOKEN_PATTERN, type Principal } from "./principal.ts";
import type { CredentialStore } from "./store.ts";

/** A credential check's outcome. `retryAfterMs > 0`: the address is locked out and nothing was checked. */
export type AuthVerdict = { ok: true; principal: Principal } | { ok: false; retryAfterMs: number };

/** How long a scoped token's lookup is remembered: a revocation takes effect within this. */
export const CREDENTIAL_CACHE_MS = 5_000;

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
 * for CREDENTIAL_CACHE_MS). Every check goes through the per-address backoff: a locked-out address is refused
 * unchecked, a wrong token counts against it, a right one clears it.
 */
export function createCredentialCheck({ adminToken, backoff, credentials, now = Date.now, log }: CredentialCheckOptions) {
  const isAdmin = createTokenCheck(adminToken);
  const cache = new Map<string, { principal: Principal | undefined; until: number }>();

  async function lookup(token: string): Promise<Principal | undefined> {
    const hash = hashToken(token);
    const at = now();
    const cached = cache.get(hash);
    if (cached && cached.until > at) return cached.principal;
    const credential = await credentials!.findByHash(hash);
    const principal = credential && principalFor(credential);
    if (cache.size >= 10_000) cache.clear();
    cache.set(hash, { principal, until: at + CREDENTIAL_CACHE_MS });
    return principal;
  }

  function wrong(address: string | undefined, presented: unknown): AuthVerdict {
    if (typeof presented === "string" && presented !== "") backoff.failed(address);
    return { ok: false, retryAfterMs: 0 };
  }

  return (address: string | undefined, presented: unknown): AuthVerdict | Promise<AuthVerdict> => {
    const retryAfterMs = backoff.retryAfterMs(address);
    if (retryAfterMs > 0) return { ok: false, retryAfterMs };
    if (isAdmin(presented)) {
      backoff.succeeded(address);
      return { ok: true, principal: ADMIN };
    }
    if (!credentials || typeof presented !== "string" || !SCOPED_TOKEN_PATTERN.test(presented)) return wrong(address, presented);
    return lookup(presented).then(
      (principal): AuthVerdict => {
        if (!principal) return wrong(address, presented);
        backoff.succeeded(address);
        return { ok: true, principal };
      },
      (error): AuthVerdict => {
        // The store is unreachable: refuse, but a token that could not be checked is no guess.
        log?.("could not check a scoped token", error);
        return { ok: false, retryAfterMs: 0 };
      },
    );
  };
}

export type CredentialCheck = ReturnType<typeof createCredentialCheck>;
