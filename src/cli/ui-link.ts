import type { Config } from "../runtime/config.ts";
import { gatewayEndpoint } from "../client/from-config.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import { controlUiUrl } from "./ask-progress.ts";
import type { CliIO } from "./io.ts";

export const UI_LINK_HELP = `Usage: ask-user-bridge ui-link [--force]

Prints the Control UI's admin sign-in link again (the gateway's URL, or GATEWAY_PUBLIC_URL, then /#token=…), for the
gateway the other commands reach: GATEWAY_URL and GATEWAY_TOKEN, the token under DATA_DIR, or the gateway this user
started last (--gateway NAME for another). The link holds the admin token, so it is printed only to a terminal.

  --force   print it even when stdout is not a terminal (a pipe or a file keeps the admin token)`;

/** `ui-link`: the admin sign-in link, again (it is shown once at the first start, and never to a log). */
export async function runUiLink(argv: string[], config: Config, io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(argv, { force: { type: "boolean" } });
  if (values.help) return io.out(UI_LINK_HELP), 0;
  if (!io.tty?.out && !values.force) throw new UsageError("stdout is not a terminal: the link holds the admin token, so it is printed only to a terminal (--force to print it anyway)");
  const { url, token } = gatewayEndpoint(config);
  io.out(`${controlUiUrl(config.GATEWAY_PUBLIC_URL ?? url)}#token=${token}`);
  return 0;
}
