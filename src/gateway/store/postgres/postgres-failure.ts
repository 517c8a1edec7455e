import { StoreUnavailableError } from "../kit/errors.ts";

/**
 * SQLSTATEs that mean "the database could not take this statement now", so the caller may retry later:
 * transaction rollback (40: serialization failure, deadlock), connection exception (08), insufficient resources
 * (53), operator intervention (57: shutdown, terminated backend, statement timeout), system error (58), and a
 * read-only server (25006, e.g. a standby after a failover). Every other SQLSTATE is a real answer (a constraint,
 * a bad value) and passes through unchanged.
 */
const UNAVAILABLE_SQLSTATE = /^(08|40|53|57|58)...$|^25006$/;

const isSqlState = (code: unknown): code is string => typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);

/** A short, stable name for what went wrong: `ECONNREFUSED`, `57P01 terminating connection …`, or the message. */
export function describePostgresFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (isSqlState(code)) return `${error.message} (${code})`;
  // Node's happy-eyeballs connect throws an AggregateError with an empty message (one error per address).
  const inner = error instanceof AggregateError ? error.errors.find((e): e is Error => e instanceof Error) : undefined;
  const message = error.message || inner?.message || "";
  if (typeof code === "string") return message.includes(code) ? message : `${code}${message ? ` (${message})` : ""}`;
  return message || error.name;
}

/** True when the error means the database is unreachable or refused for now (see UNAVAILABLE_SQLSTATE). */
export function isPostgresUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (isSqlState(code)) return UNAVAILABLE_SQLSTATE.test(code);
  // Any other error comes from the socket or the driver (refused, reset, timed out, terminated), except a
  // programmer error the driver throws before sending anything.
  return error instanceof Error && !(error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError);
}

/** No connection could be made, so nothing was sent: the statement certainly did not run. */
export function unreachableError(error: unknown): StoreUnavailableError {
  return new StoreUnavailableError(`PostgreSQL is unreachable: ${describePostgresFailure(error)}`, { cause: error });
}

/**
 * True when the connection died under the statement (a socket error, a client-side timeout, or a FATAL that ends
 * the session: a terminated backend, a shutdown), as opposed to the server answering it with an ERROR.
 */
export function isConnectionLost(error: unknown): boolean {
  if (!isPostgresUnavailable(error)) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return !isSqlState(code) || severity === "FATAL" || severity === "PANIC";
}

/**
 * A statement failed after it was sent. An ERROR from the server is its word that the statement did not apply
 * (the transaction was rolled back). A lost connection leaves a write's outcome unknown, and the message says so:
 * either way the promise rejects, so the caller never reports a write the database may not hold.
 */
export function statementError(error: unknown, operation: string, write: boolean): unknown {
  if (!isPostgresUnavailable(error)) return error;
  const detail = describePostgresFailure(error);
  if (!isConnectionLost(error)) return new StoreUnavailableError(`PostgreSQL refused ${operation}: ${detail}`, { cause: error });
  const outcome = write ? ", so whether it took effect is unknown" : "";
  return new StoreUnavailableError(`PostgreSQL did not finish ${operation}${outcome}: ${detail}`, { cause: error });
}
