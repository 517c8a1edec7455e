import { BOT_NAMES, type BotName } from "../../../platforms/surfaces.ts";

/**
 * The roles a scoped credential can have (`ask-user-bridge token create --role …`). `person`: someone who answers in
 * the Control UI under the credential's name (a PERSON_NAME_PATTERN name), seeing only `web` and `web:<name>` questions.
 */
export const ROLES = ["agent", ...BOT_NAMES.map((name) => `bot:${name}` as const), "person"] as const;
export type Role = "agent" | "person" | `bot:${BotName}`;

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
  /** Revokes by id or by name (every live credential of that name), and ends their sessions; returns what it revoked. */
  revoke(idOrName: string, nowMs: number): Promise<Credential[]>;
  /** The Control UI's sign-ins, in the same database: every instance knows them, and they outlive a restart. */
  sessions: StoredSessions;
  close(): Promise<void>;
}

/** A Control UI sign-in as the store keeps it (keyed by the SHA-256 of its id; the id itself is never stored). */
export interface StoredSession {
  /** Who signed in: the admin (`admin`, GATEWAY_TOKEN) or a person's credential (`credential`, by its id). */
  who: { kind: "admin"; tag: string } | { kind: "credential"; credentialId: string };
  createdAtMs: number;
  lastUsedAtMs: number;
}

/**
 * A session found, with the credential it was signed in with (as `findByHashes` gives it, revoked or not, and its
 * token hash, by which open connections are re-checked); no credential when that credential is gone.
 */
export interface FoundSession extends StoredSession {
  credential?: Credential & { tokenHash: string };
}

/** Sessions by the SHA-256 of their ids (hex). */
export interface StoredSessions {
  /** Refuses (throws) an id hash the store already holds. */
  add(idHash: string, session: StoredSession): Promise<void>;
  /** The sessions of these id hashes, in one round trip, keyed by id hash. */
  find(idHashes: readonly string[]): Promise<Map<string, FoundSession>>;
  /** Moves a session's last use forward (never back). */
  touch(idHash: string, lastUsedAtMs: number): Promise<void>;
  /** Ends a session (sign-out); an unknown one is ignored. */
  delete(idHash: string): Promise<void>;
  /** Deletes every session last used at or before `idleBeforeMs` or created at or before `createdBeforeMs`; returns how many. */
  prune(idleBeforeMs: number, createdBeforeMs: number): Promise<number>;
}
