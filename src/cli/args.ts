import { parseArgs, type ParseArgsConfig } from "node:util";

export class UsageError extends Error {
  override name = "UsageError";
}

type CommandArgsConfig<T> = { args: string[]; options: T & { help: { type: "boolean"; short: string } }; allowPositionals: boolean; strict: true };

/**
 * `--flag -5` as `--flag=-5` for a flag that takes a value: util.parseArgs refuses a value that starts with a dash
 * (four lines about ambiguity), where the command's own check says in one line why a negative number is wrong.
 */
function joinNegativeValues(argv: readonly string[], options: NonNullable<ParseArgsConfig["options"]>): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const next = argv[i + 1];
    const name = word.startsWith("--") ? word.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === "string" && next !== undefined && /^-\d/u.test(next)) {
      joined.push(`${word}=${next}`);
      i++;
    } else joined.push(word);
  }
  return joined;
}

/** util.parseArgs with usage errors that say what was wrong. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig["options"]>>(
  argv: string[],
  options: T,
  allowPositionals = false,
): ReturnType<typeof parseArgs<CommandArgsConfig<T>>> {
  try {
    return parseArgs({ args: joinNegativeValues(argv, options), options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
