/**
 * `ask-user-bridge init` (issue 36 §2): a bot and the person it asks, set up in one go. Which platforms; each one's
 * credentials, checked with its API; who the person is (captured from their /start, or typed); .env written (0600,
 * merged, backed up) with the allow-list and ASK_DEFAULT_TARGETS; the Claude Code hook if wanted; a test question.
 * On a terminal it asks; with --yes every value comes from flags, the environment or the existing file.
 */
import { existsSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { Config } from "../runtime/config.ts";
import { loadConfig } from "../runtime/config.ts";
import type { Target } from "../record/record.ts";
import { formatTarget, parseTarget, parseTargetList } from "../record/targets.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import { readEnvFile, writeEnvFile } from "./env-file.ts";
import { claudeSettings, installClaudeSettings } from "./hook.ts";
import { INIT_HELP, INIT_OPTIONS, SETUP_PLATFORMS, variableFlags, type SetupPlatform } from "./init-flags.ts";
import { askTestQuestion } from "./init-test-question.ts";
import { credentialsStep, InitStop, whoStep, type InitPrompts } from "./init-who.ts";
import type { CliIO } from "./io.ts";

export { INIT_HELP };

const DEFAULT_TEST_TIMEOUT_SECONDS = 600;
/** The hook's question timeout, as `hook claude-code --install` writes it by default. */
const HOOK_TIMEOUT_SECONDS = 900;

type Values = Record<string, string | undefined>;

function choosePlatforms(named: readonly string[], values: Values): SetupPlatform[] {
  const names = named.flatMap((text) => text.split(",")).map((name) => name.trim().toLowerCase()).filter(Boolean);
  const chosen = names.map((name) => {
    const platform = SETUP_PLATFORMS.find((p) => p.surface === name);
    if (!platform) throw new UsageError(`--platform "${name}": init sets up ${SETUP_PLATFORMS.map((p) => p.surface).join(", ")}`);
    return platform;
  });
  // A platform whose flags are given is chosen too.
  for (const platform of SETUP_PLATFORMS) {
    const flags = [...variableFlags(platform).map(({ flag }) => flag), `${platform.surface}-chat`, `${platform.surface}-user`];
    if (!chosen.includes(platform) && flags.some((flag) => values[flag] !== undefined)) chosen.push(platform);
  }
  return SETUP_PLATFORMS.filter((p) => chosen.includes(p));
}

/** The allow-list with `user` added (the ids already there kept). */
function allowList(existing: string | undefined, user: string): string {
  const ids = (existing ?? "").split(",").map((id) => id.trim()).filter(Boolean);
  return [...new Set([...ids, user])].join(",");
}

/** ASK_DEFAULT_TARGETS with these targets: the existing ones of other surfaces kept, those of these surfaces replaced. */
function defaultTargets(existing: string | undefined, targets: readonly Target[]): string {
  let kept: Target[] = [];
  try {
    kept = parseTargetList(existing ?? "");
  } catch {
    // an unreadable list is replaced whole
  }
  const surfaces = new Set(targets.map((t) => t.surface));
  return [...kept.filter((t) => !surfaces.has(t.surface)), ...targets].map(formatTarget).join(",");
}

async function loadPrompts(): Promise<InitPrompts & { checkbox: typeof import("@inquirer/prompts").checkbox }> {
  const { checkbox, confirm, input, password } = await import("@inquirer/prompts");
  return { checkbox, confirm, input, password };
}

export async function runInit(argv: string[], _config: Config, io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(argv, INIT_OPTIONS);
  if (values.help) return io.out(INIT_HELP), 0;
  const flags = values as Values & { yes?: boolean; hook?: boolean; "no-hook"?: boolean; "no-test"?: boolean; platform?: string[] };
  if (flags.hook && flags["no-hook"]) throw new UsageError("--hook or --no-hook, not both");
  if (flags.project !== undefined && (flags["no-hook"] || (flags.yes && !flags.hook))) throw new UsageError("--project goes with --hook");
  const testTimeout = flags["test-timeout"] === undefined ? DEFAULT_TEST_TIMEOUT_SECONDS : Number(flags["test-timeout"]);
  if (!Number.isInteger(testTimeout) || testTimeout < 30 || testTimeout > 3600) throw new UsageError(`--test-timeout: "${flags["test-timeout"]}" is not a whole number of seconds from 30 to 3600`);
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (!terminal && !flags.yes) throw new UsageError(`asks its questions on a terminal; without one, give --yes and every value as a flag (e.g. --yes --${SETUP_PLATFORMS[0]!.surface}-token TOKEN --${SETUP_PLATFORMS[0]!.surface}-user ID)`);
  const prompts = flags.yes ? undefined : await loadPrompts();

  const envFile = resolve(flags.dotenv ?? ".env");
  // What is set now: the file's values under the environment's (dotenv's order: the environment wins).
  const current: Values = { ...readEnvFile(envFile), ...process.env };
  try {
    return await setUp({ flags, prompts, io, envFile, current, testTimeout });
  } catch (error) {
    if (error instanceof InitStop) return io.err(error.message), error.exitCode;
    if ((error as Error)?.name === "ExitPromptError") return io.err("init: stopped; nothing more was written."), 130;
    throw error;
  }
}

async function setUp(options: {
  flags: Values & { yes?: boolean; hook?: boolean; "no-hook"?: boolean; "no-test"?: boolean; platform?: string[] };
  prompts: Awaited<ReturnType<typeof loadPrompts>> | undefined;
  io: CliIO;
  envFile: string;
  current: Values;
  testTimeout: number;
}): Promise<number> {
  const { flags, prompts, io, envFile, current } = options;
  let platforms = choosePlatforms(flags.platform ?? [], flags);
  if (platforms.length === 0) {
    if (!prompts) throw new UsageError(`say which platform: --platform ${SETUP_PLATFORMS.map((p) => p.surface).join("|")} (or give its token flag)`);
    const picked = await prompts.checkbox({
      message: "Which platforms should ask you? (space selects, Enter goes on)",
      choices: SETUP_PLATFORMS.map((p) => ({ name: p.title, value: p.surface, checked: Boolean(current[p.tokenVar]) })),
      required: true,
    });
    platforms = SETUP_PLATFORMS.filter((p) => picked.includes(p.surface));
  }

  const written: Record<string, string> = {};
  const targets: Target[] = [];
  for (const platform of platforms) {
    io.out(`\n${platform.title}`);
    const given = Object.fromEntries(variableFlags(platform).flatMap(({ flag, name }) => (flags[flag] !== undefined ? [[name, flags[flag]!]] : [])));
    const { values, who } = await credentialsStep(platform, given, current, io, prompts);
    const env = { ...current, ...values };
    const ids = await whoStep(platform, { ...(flags[`${platform.surface}-chat`] ? { chat: flags[`${platform.surface}-chat`]! } : {}), ...(flags[`${platform.surface}-user`] ? { user: flags[`${platform.surface}-user`]! } : {}) }, env, who, io, prompts);
    const parsed = parseTarget(`${platform.surface}:${ids.chat}`);
    if (!parsed.ok) throw new UsageError(`${platform.title}: ${parsed.message}`);
    targets.push(parsed.target);
    Object.assign(written, values, { [platform.setup.allowVar]: allowList(current[platform.setup.allowVar], ids.user) });
  }
  written.ASK_DEFAULT_TARGETS = defaultTargets(current.ASK_DEFAULT_TARGETS, targets);
  // The whole configuration as the gateway will read it: a bad value is named now, not at its start.
  const next = { ...current, ...written };
  loadConfig(next);

  io.out("");
  if (existsSync(envFile) && prompts && !(await prompts.confirm({ message: `Update ${envFile}? (its other lines are kept; the old file is backed up first)`, default: true }))) {
    io.err("init: nothing was written.");
    return 1;
  }
  const { backup } = writeEnvFile(envFile, written, `ask-user-bridge init, ${new Date().toISOString().slice(0, 10)}`);
  const shown = Object.keys(written).map((key) => (SETUP_PLATFORMS.some((p) => p.secrets.some((s: string) => s === key)) ? `${key}=<hidden>` : `${key}=${written[key]}`));
  io.out(`✓ Wrote ${envFile} (0600): ${shown.join(", ")}${backup ? `; the previous file is ${backup}` : ""}`);

  const project = resolve(flags.project ?? ".");
  const hook = flags.hook ? true : flags["no-hook"] || !prompts ? false : await prompts.confirm({ message: `Install the Claude Code hook in ${project}/.claude/settings.json (Claude Code's questions and permission prompts come to you)?`, default: false });
  if (hook) {
    const installed = installClaudeSettings(project, claudeSettings([], HOOK_TIMEOUT_SECONDS));
    io.out(installed.changed ? `✓ Installed the Claude Code hook in ${installed.file}${installed.backup ? ` (the previous file is ${installed.backup})` : ""}` : `✓ ${installed.file} already has the hook`);
  }

  let code = 0;
  if (!flags["no-test"]) {
    io.out("");
    code = await askTestQuestion({ env: next, targets, titles: new Map(platforms.map((p) => [p.surface, p.title])), timeoutSeconds: options.testTimeout, io });
  }
  const folder = dirname(envFile) === process.cwd() ? "this folder" : dirname(envFile);
  const rename = basename(envFile) === ".env" ? "" : ` (it reads .env there: copy ${basename(envFile)} to .env)`;
  io.out(`\nRun it for real: \`ask-user-bridge start\` in ${folder}${rename}, or \`npm start\` in a clone of the repository.`);
  return code;
}
