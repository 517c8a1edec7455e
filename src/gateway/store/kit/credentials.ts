import { BOT_NAMES, type BotName } from "../../../platforms/surfaces.ts";

/** The roles a scoped credential can have (`ask-user-bridge token create --role …`). */
export const ROLES = ["agent", ...BOT_NAMES.map((name) => `bot:${name}` as const)] as const;
export type Role = "agent" | `bot:${BotName}`;

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** A scoped credential as `token list` shows it; the token itself is never stored, only its hash. */
export interface Credential {
  id: string;
  name: string;
  role: Role;
  createdAtMs: number;
  revokedAtMs?: number;
}

/**
 * Where scoped credentials live: the same database as the questions (its own table), so every gateway instance on
 * one PostgreSQL database knows the same credentials, and the CLI manages them without a running gateway.
 */
export interface CredentialStore {
  /** Refuses (throws) a token hash or an id the store already holds. */
  add(credential: Credential, tokenHash: string): Promise<void>;
  /**
   * The credentials with these token hashes, revoked ones included (a revoked credential is refused, but it is not a
   * wrong guess), keyed by hash. One round trip, so open connections are re-checked in a batch.
   */
  findByHashes(tokenHashes: readonly string[]): Promise<Map<string, Credential>>;
  /** Every credential, revoked ones included, oldest first (ties by id). */
  list(): Promise<Credential[]>;
  /** Revokes by id or by name (every live credential of that name); returns what it revoked. */
  revoke(idOrName: string, nowMs: number): Promise<Credential[]>;
  close(): Promise<void>;
}
