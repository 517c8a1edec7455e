/** The levels LOG_LEVEL takes (pino's, plus silent). Apart from log.ts so that config.ts does not load pino. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** LOG_LEVEL as given, checked; an unknown level is refused with the list (config.ts validates it at start too). */
export function logLevelFrom(value: string | undefined): LogLevel {
  const level = (value ?? "").trim().toLowerCase() || "info";
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got "${value}")`);
}
