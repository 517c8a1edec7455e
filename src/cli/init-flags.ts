/**
 * `init`'s flags, derived from the platforms' descriptors: for each platform init sets up (`setup` on its descriptor),
 * `--<platform>-token` for its token variable, `--<variable-in-kebab-case>` for each of its other variables, and
 * `--<platform>-chat` / `--<platform>-user` for the person's ids (skipping the capture).
 */
import type { ParseArgsConfig } from "node:util";
import { PLATFORM_LIST, type Platform } from "../platforms/descriptors.ts";
import type { PlatformSetup } from "../platforms/kit/descriptor.ts";
import { ENV_KIT } from "../platforms/kit/env.ts";

export type SetupPlatform = Platform & { setup: PlatformSetup };

/** The platforms init sets up, in registry order. */
export const SETUP_PLATFORMS: readonly SetupPlatform[] = PLATFORM_LIST.filter((p): p is SetupPlatform => p.setup !== undefined);

/** A platform's variable flags: flag name → variable (the allow-list is left out: --<platform>-user fills it). */
export function variableFlags(platform: SetupPlatform): Array<{ flag: string; name: string }> {
  const names = Object.keys(platform.env(ENV_KIT)).filter((name) => name !== platform.setup.allowVar);
  return names.map((name) => ({ flag: name === platform.tokenVar && name.endsWith("_TOKEN") ? `${platform.surface}-token` : name.toLowerCase().replace(/_/gu, "-"), name }));
}

export const INIT_OPTIONS = {
  platform: { type: "string", multiple: true },
  "dotenv": { type: "string" },
  yes: { type: "boolean", short: "y" },
  hook: { type: "boolean" },
  "no-hook": { type: "boolean" },
  project: { type: "string" },
  "no-test": { type: "boolean" },
  "test-timeout": { type: "string" },
  ...Object.fromEntries(
    SETUP_PLATFORMS.flatMap((p) => [...variableFlags(p).map(({ flag }) => flag), `${p.surface}-chat`, `${p.surface}-user`]).map((flag) => [flag, { type: "string" as const }]),
  ),
} satisfies NonNullable<ParseArgsConfig["options"]>;

const platformLines = SETUP_PLATFORMS.map((p) => {
  const flags = variableFlags(p).filter(({ name }) => name === p.tokenVar || p.setup.vars.some((v) => v.name === name));
  const who = p.setup.pairing.chat ? `--${p.surface}-chat ID --${p.surface}-user ID` : `--${p.surface}-user ID`;
  return `  ${p.title.padEnd(16)} ${flags.map(({ flag }) => `--${flag}`).join(" ")}; ${who}`;
});
const captured = SETUP_PLATFORMS.filter((p) => p.setup.pairing.capture);
const notOffered = PLATFORM_LIST.filter((p) => !p.setup).map((p) => p.title);

export const INIT_HELP = `Usage: ask-user-bridge init [--platform NAME]... [flags] [--yes]

Sets up a bot and the person it asks, on a terminal step by step: which platforms; each one's token, checked with
the platform's API; who you are (${captured.map((p) => `send ${p.setup.pairing.hello} to a ${p.title} bot`).join(", ")} and init reads your
chat and user id from it; on the other platforms you type your id, and init says where to find it); then writes .env (0600) with the tokens, the
allow-list (<PLATFORM>_ALLOWED_USERS) and ASK_DEFAULT_TARGETS, optionally installs the Claude Code hook, and ends
with a test question to you: it starts the gateway with the new bot, asks, and prints your answer.

  --platform NAME      a platform to set up; repeatable or comma-separated:
                       ${SETUP_PLATFORMS.map((p) => p.surface).join(", ")}
                       default: the platforms whose token flag is given; on a terminal, a checklist
  --dotenv PATH        the file to write (default: .env in this folder). An existing one is merged: its other
                       lines and comments kept, the keys set here replaced, the old file copied to PATH.bak first
                       (not --env-file: Node 20 takes that flag for itself wherever it stands)
  --yes, -y            no questions: every value from the flags, the environment or the existing file, and yes to
                       overwriting .env. A value still missing is an error. Needed without a terminal
  --hook, --no-hook    install (or not) the Claude Code hook (hook claude-code --install); asked on a terminal
  --project DIR        where the hook goes: DIR/.claude/settings.json (default: this folder)
  --no-test            skip the test question at the end
  --test-timeout SECS  how long the test question waits for your answer (default 600)

Each platform's values (their other variables have flags too, named after them):
${platformLines.join("\n")}
${notOffered.length > 0 ? `Not set up by init yet: ${notOffered.join(", ")} (see docs/platforms/).\n` : ""}
Tokens are never printed. Exit codes: 0 set up, 1 error (a token refused, the test unanswered), 130 stopped.`;
