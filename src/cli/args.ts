import { parseArgs, type ParseArgsConfig } from "node:util";

export class UsageError extends Error {
  override name = "UsageError";
}

type CommandArgsConfig<T> = { args: string[]; options: T & { help: { type: "boolean"; short: string } }; allowPositionals: boolean; strict: true };

/** util.parseArgs with usage errors that say what was wrong. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig["options"]>>(
  argv: string[],
  options: T,
  allowPositionals = false,
): ReturnType<typeof parseArgs<CommandArgsConfig<T>>> {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
