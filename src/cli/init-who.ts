/**
 * `init`'s two per-platform steps: the credentials (asked or taken from flags, then checked with the platform's API)
 * and who the person is (captured from their first message, or typed). Both run with `prompts` on a terminal and
 * without it under --yes, where a missing value is a usage error.
 */
import { checkCredentials } from "../platforms/kit/credential-check.ts";
import type { TypedId } from "../platforms/kit/descriptor.ts";
import { awaitHello } from "../platforms/kit/pairing.ts";
import { UsageError } from "./args.ts";
import { variableFlags, type SetupPlatform } from "./init-flags.ts";
import type { CliIO } from "./io.ts";

/** The terminal's questions (@inquirer/prompts), loaded only on a terminal. */
export interface InitPrompts {
  input(options: { message: string; default?: string; validate?: (value: string) => boolean | string }): Promise<string>;
  password(options: { message: string; mask?: boolean | string }): Promise<string>;
  confirm(options: { message: string; default?: boolean }): Promise<boolean>;
}

/** Set to stop init with an exit code and a last line (the token refused under --yes, the person stopping). */
export class InitStop extends Error {
  constructor(readonly exitCode: number, message: string) {
    super(message);
    this.name = "InitStop";
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Where a platform's credential check goes, as scheme and host only (the token may be in its path). */
function apiOrigin(platform: SetupPlatform, env: Env): string | undefined {
  const url = platform.credentialCheck?.(env)?.url;
  return url ? new URL(url).origin : undefined;
}

/**
 * The platform's variables: from `given` (flags), else asked (on a terminal), else the current environment; then
 * checked. A refused token is asked again on a terminal, and stops init under --yes. Returns the values to write
 * and who the bot is.
 */
export async function credentialsStep(
  platform: SetupPlatform,
  given: Record<string, string>,
  current: Env,
  io: CliIO,
  prompts: InitPrompts | undefined,
): Promise<{ values: Record<string, string>; who?: string }> {
  const values = { ...given };
  for (let attempt = 0; ; attempt++) {
    for (const variable of platform.setup.vars) {
      if (values[variable.name] !== undefined && attempt === 0) continue;
      const existing = current[variable.name];
      if (!prompts) {
        if (existing === undefined && !variable.optional) throw new UsageError(`${platform.title} needs ${variable.name}: ${variable.prompt} (give it as --${variableFlags(platform).find((f) => f.name === variable.name)!.flag})`);
        continue;
      }
      const keep = existing !== undefined ? (variable.secret ? " (Enter keeps the one set now)" : "") : variable.optional ? " (Enter skips)" : "";
      const answer = variable.secret
        ? await prompts.password({ message: `${variable.prompt}${keep}:`, mask: "*" })
        : await prompts.input({ message: `${variable.prompt}${keep}:`, ...(existing !== undefined ? { default: existing } : {}), validate: (v) => v.trim() !== "" || variable.optional === true || existing !== undefined || "required" });
      if (answer.trim() !== "") values[variable.name] = answer.trim();
      else delete values[variable.name];
    }
    const env = { ...current, ...values };
    const verdict = await checkCredentials(platform, env);
    if (verdict.status === "ok") {
      io.out(`✓ ${platform.title}: ${platform.apiName} accepts the credentials (${verdict.who})`);
      return { values, who: verdict.who };
    }
    if (verdict.status === "uncheckable") {
      io.out(`- ${platform.title}: init cannot check these credentials with one call; the bot's log will say whether ${platform.apiName} takes them`);
      return { values };
    }
    if (verdict.status === "incomplete") throw new UsageError(`${platform.title} needs ${platform.botHelp}`);
    if (verdict.status === "refused") {
      io.out(`✗ ${platform.title}: ${platform.apiName} refused the credentials (${verdict.why})`);
      if (!prompts) throw new InitStop(1, `init: ${platform.title} refused ${platform.tokenVar}; check it (${platform.setup.vars[0]!.prompt}). Nothing was written.`);
      io.out("  Enter them again.");
      continue;
    }
    io.out(`✗ ${platform.title}: could not reach ${platform.apiName} at ${apiOrigin(platform, env) ?? "its address"} (${verdict.why})`);
    if (!prompts) {
      io.out("  Keeping the values unchecked (--yes).");
      return { values };
    }
    if (await prompts.confirm({ message: "Keep these values anyway (unchecked)?", default: false })) return { values };
  }
}

function matches(id: TypedId, text: string): string | undefined {
  const value = id.normalize ? id.normalize(text) : text.trim();
  return new RegExp(`^(?:${id.pattern})$`, "u").test(value) ? value : undefined;
}

/** An id given as a flag, checked against its shape. */
export function typedFlag(id: TypedId, flag: string, text: string): string {
  const value = matches(id, text);
  if (value === undefined) throw new UsageError(`--${flag} "${text}" is not ${id.label}`);
  return value;
}

async function askTyped(id: TypedId, prompts: InitPrompts, io: CliIO, fallback?: string): Promise<string> {
  io.out(`  Where to find ${id.label}: ${id.where}.`);
  const text = await prompts.input({ message: `${id.label[0]!.toUpperCase()}${id.label.slice(1)}:`, ...(fallback !== undefined ? { default: fallback } : {}), validate: (v) => matches(id, v) !== undefined || `that is not ${id.label}` });
  return matches(id, text)!;
}

/**
 * Who the person is on this platform: flags first; else their hello, captured where the platform allows it with
 * plain HTTP (Ctrl-C, a refusal or no network falls back to typing on a terminal); else typed.
 */
export async function whoStep(
  platform: SetupPlatform,
  flags: { chat?: string; user?: string },
  env: Env,
  bot: string | undefined,
  io: CliIO,
  prompts: InitPrompts | undefined,
): Promise<{ chat: string; user: string }> {
  const { pairing } = platform.setup;
  const chatFromFlag = flags.chat !== undefined ? typedFlag(pairing.chat ?? pairing.user, `${platform.surface}-chat`, flags.chat) : undefined;
  const userFromFlag = flags.user !== undefined ? typedFlag(pairing.user, `${platform.surface}-user`, flags.user) : undefined;
  if (userFromFlag !== undefined && (chatFromFlag !== undefined || !pairing.chat || pairing.chatDefaultsToUser)) return { user: userFromFlag, chat: chatFromFlag ?? userFromFlag };
  if (chatFromFlag !== undefined && !pairing.chat && userFromFlag === undefined) return { user: chatFromFlag, chat: chatFromFlag };

  if (pairing.capture) {
    for (;;) {
      io.out(`→ Now open ${platform.title}, find your bot${bot ? ` ${bot}` : ""} and send it ${pairing.hello}. Waiting for it${prompts ? " (Ctrl-C to type your ids instead)" : ""}…`);
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once("SIGINT", onSignal);
      const outcome = await awaitHello(platform, env, { signal: controller.signal }).finally(() => process.off("SIGINT", onSignal));
      if (outcome.status === "hello") {
        io.out(`✓ ${platform.title}: got ${pairing.hello} from ${outcome.name ?? "you"} (user ${outcome.user}, chat ${outcome.chat})`);
        return { chat: chatFromFlag ?? outcome.chat, user: userFromFlag ?? outcome.user };
      }
      if (outcome.status === "aborted" && !prompts) throw new InitStop(130, "init: stopped; nothing was written.");
      if (outcome.status === "failed") io.out(`✗ ${platform.title}: ${outcome.why}${outcome.fix ? `\n  ${outcome.fix}` : ""}`);
      if (outcome.status === "unreachable") io.out(`✗ ${platform.title}: could not reach ${platform.apiName} (${outcome.why})`);
      if (!prompts) throw new InitStop(1, `init: could not learn who you are on ${platform.title}; give --${platform.surface}-user${pairing.chat ? (pairing.chatDefaultsToUser ? ` (and --${platform.surface}-chat for a group)` : ` and --${platform.surface}-chat`) : ""} instead.`);
      if (outcome.status === "failed" && (await prompts.confirm({ message: "Try again?", default: true }))) continue;
      break;
    }
  } else io.out(`→ ${platform.title}: init cannot see your first message (${pairing.notCaptured ?? "no plain HTTP way"}), so type your id.`);

  if (!prompts) {
    const missing = [...(userFromFlag === undefined ? [`--${platform.surface}-user (${pairing.user.label}: ${pairing.user.where})`] : []), ...(pairing.chat && !pairing.chatDefaultsToUser && chatFromFlag === undefined ? [`--${platform.surface}-chat (${pairing.chat.label}: ${pairing.chat.where})`] : [])];
    throw new UsageError(`${platform.title} needs ${missing.join(" and ")}`);
  }
  const user = userFromFlag ?? (await askTyped(pairing.user, prompts, io));
  const chat = chatFromFlag ?? (pairing.chat ? await askTyped(pairing.chat, prompts, io, pairing.chatDefaultsToUser ? user : undefined) : user);
  return { chat, user };
}
