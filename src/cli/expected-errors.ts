import type { Config } from "../runtime/config.ts";
import { PLATFORM_LIST } from "../platforms/descriptors.ts";

/** The port variable that names `port` in this configuration, so the message says which one to change. */
function portVariable(port: number | undefined, config: Config | undefined): string {
  if (config && port !== undefined) {
    for (const variable of PLATFORM_LIST.flatMap((p): readonly string[] => p.portVars)) {
      if (port === config[variable as keyof Config] && port !== config.GATEWAY_PORT) return variable;
    }
  }
  return "GATEWAY_PORT";
}

const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "it is a folder",
};

/**
 * One line that says what went wrong and what to do, for the errors a person can fix (a port in use, no token, a
 * missing file, an unreachable gateway); undefined for anything else, which keeps its stack.
 */
export function expectedErrorLine(error: unknown, config: Config | undefined): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code } = error as NodeJS.ErrnoException;
  if (code === "EADDRINUSE") {
    const { port, portVariable: named } = error as NodeJS.ErrnoException & { port?: number; portVariable?: string };
    return `port ${port ?? "?"} is in use: set ${named ?? portVariable(port, config)} or stop the other process`;
  }
  if (code === "EADDRNOTAVAIL") {
    const address = (error as NodeJS.ErrnoException & { address?: string }).address;
    return `cannot listen on ${address ?? "that address"}: it is not this machine's; set GATEWAY_HOST (or the bot's own host variable)`;
  }
  if (code === "NO_GATEWAY_TOKEN") return error.message;
  const path = (error as NodeJS.ErrnoException).path;
  if (code && path && Object.hasOwn(FILE_PROBLEMS, code)) return `cannot read ${path}: ${FILE_PROBLEMS[code]}`;
  if (code === "DISCONNECTED") {
    return `DISCONNECTED: ${error.message}. Is the gateway running? Start it with \`ask-user-bridge start\`, or set GATEWAY_URL`;
  }
  return undefined;
}
