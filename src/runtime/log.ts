/**
 * Structured logs (issue 19): pino, one logger per process, named after it (`gateway`, `bot:<platform>`, …).
 *
 * - JSON lines when the output is not a terminal (journald, a file, a log shipper), one write per turn of the event
 *   loop, never stalling on a slow reader (log-destination.ts); readable lines on a terminal (pino-pretty, in this
 *   thread: no worker). Either way what was logged is written when the process exits.
 * - `LOG_LEVEL` (default `info`). Question and answer text are logged at `debug` only, by the callers.
 * - The deployment's own secrets (gateway token, bot tokens, signing secrets) never appear: every string logged,
 *   including an error's message and stack, has them replaced with `[redacted]`. A secret known only once the
 *   logger exists (the token the gateway generates under DATA_DIR) is added with redactAlso.
 */
import { createRequire } from "node:module";
import { pino, type DestinationStream, type Logger } from "pino";
import type { PrettyStream } from "pino-pretty";
import { logLevelFrom, type LogLevel } from "./log-level.ts";
import { createLineDestination } from "./log-destination.ts";

export type { Logger } from "pino";
export { LOG_LEVELS, logLevelFrom, type LogLevel } from "./log-level.ts";

/** pino-pretty, loaded only for a terminal (it is not needed for JSON lines, and costs start-up time). */
const loadPretty = () => createRequire(import.meta.url)("pino-pretty") as (options: Record<string, unknown>) => PrettyStream;

/** The callback shape the bridge and bots pass around: a line, and the error that caused it when there is one. */
export type Log = (message: string, error?: unknown) => void;

export interface LoggerOptions {
  /** Default: LOG_LEVEL, else `info`. */
  level?: LogLevel;
  /** 1 (stdout, the default) or 2: a process whose stdout carries a protocol (the MCP server) logs to stderr. */
  fd?: 1 | 2;
  /** Readable lines instead of JSON; default: when the output is a terminal. */
  pretty?: boolean;
  /** Strings that must never be written (tokens, signing secrets). Shorter than 8 characters: ignored. */
  secrets?: readonly (string | undefined)[];
  /** Where to write instead of the fd (tests). */
  destination?: DestinationStream;
}

const REDACTED = "[redacted]";

/** Replaces every occurrence of a secret in `text`; `add` takes more secrets, for the lines logged from then on. */
interface Redactor {
  redact: (text: string) => string;
  add: (secrets: readonly (string | undefined)[]) => void;
}

function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  let needles: string[] = [];
  const add = (more: readonly (string | undefined)[]) => {
    const fresh = more.map((s) => s?.trim() ?? "").filter((s) => s.length >= 8);
    needles = [...new Set([...needles, ...fresh])].sort((a, b) => b.length - a.length);
  };
  add(secrets);
  return {
    redact: (text) => (needles.some((n) => text.includes(n)) ? needles.reduce((t, n) => t.split(n).join(REDACTED), text) : text),
    add,
  };
}

/** Each logger createLogger made, and its redactor (its child loggers share it). */
const redactors = new WeakMap<Logger, Redactor>();

/**
 * Adds secrets that `logger` (one createLogger returned) and its children must never write, from the next line on:
 * for a secret that exists only after the logger does, such as the token the gateway generates when GATEWAY_TOKEN is
 * unset. A logger that createLogger did not make is left as it is.
 */
export function redactAlso(logger: Logger, secrets: readonly (string | undefined)[]): void {
  redactors.get(logger)?.add(secrets);
}

/** Deep copy of a log object with every string redacted; an error stays an error of its class (for pino's `err`). */
function scrub(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === "string") return redact(value);
  if (value === null || typeof value !== "object" || depth > 6) return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, redact, depth + 1));
  const copy = value instanceof Error ? (Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>) : ({} as Record<string, unknown>);
  const keys = value instanceof Error ? new Set(["message", "stack", ...Object.keys(value)]) : Object.keys(value);
  for (const key of keys) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) copy[key] = scrub(field, redact, depth + 1);
  }
  return copy;
}

/** A process's logger. `name` is the process: `gateway`, `bot:<platform>`, `start`, … */
export function createLogger(name: string, options: LoggerOptions = {}): Logger {
  const fd = options.fd ?? 1;
  const level = options.level ?? logLevelFrom(process.env.LOG_LEVEL);
  const redactor = createRedactor(options.secrets ?? []);
  const { redact } = redactor;
  const isTerminal = (fd === 1 ? process.stdout : process.stderr).isTTY === true;
  const destination =
    options.destination ??
    ((options.pretty ?? isTerminal)
      ? loadPretty()({ destination: fd, sync: true, colorize: isTerminal, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", messageKey: "msg" })
      : createLineDestination({ fd, name }));
  const logger = pino(
    {
      name,
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => scrub(arg, redact)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
  redactors.set(logger, redactor);
  return logger;
}

/**
 * An error as one readable warning carries it: its type, its message and its network code (`ECONNREFUSED`), never
 * its stack (nor its nested causes' stacks), which are for debugging.
 */
export function errorSummary(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const inner = error as { code?: unknown; cause?: { code?: unknown; message?: unknown }; error?: { code?: unknown; message?: unknown } };
  const code = inner.code ?? inner.cause?.code ?? inner.error?.code;
  const detail = inner.cause?.message ?? inner.error?.message;
  return {
    type: error.constructor.name,
    message: error.message,
    ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
    ...(typeof detail === "string" && detail !== error.message ? { cause: detail } : {}),
  };
}

/**
 * The `Log` callback over a logger: a line with an error is one warning carrying the error's summary (`error`: type,
 * message, code), with the whole error and its stack on a debug line of its own; else info. Callers that know better
 * use the logger's own levels.
 */
export function logCallback(logger: Logger): Log {
  return (message, error) => {
    if (error === undefined) return logger.info(message);
    logger.warn({ error: errorSummary(error) }, message);
    if (error instanceof Error && logger.isLevelEnabled("debug")) logger.debug({ err: error }, `${message} (the error in full)`);
  };
}
