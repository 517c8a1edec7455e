import type { Config } from "../runtime/config.ts";
import { hashToken, isRole, newScopedToken, ROLES } from "../gateway/auth/principal.ts";
import { openCredentialStore, type Credential } from "../gateway/auth/store.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import { PLATFORM_NAMES, PLATFORM_SURFACES } from "../platforms/index.ts";
import { PERSON_NAME_PATTERN, PERSON_NAME_RULE } from "../record/targets.ts";
import { gatewayUrl } from "../client/from-config.ts";
import { controlUiUrl } from "./ask-progress.ts";

const [FIRST_BOT, ...OTHER_BOTS] = PLATFORM_NAMES;
/** `bot:<first platform>`, as the example bot role. */
const BOT_ROLE_LINE = `${`bot:${FIRST_BOT}`.padEnd(15)}report deliveries and answer, as ${PLATFORM_SURFACES[FIRST_BOT].title} only (likewise ${OTHER_BOTS.map((name) => `bot:${name}`).join(", ")})`;

type IO = { out: (s: string) => void; err: (s: string) => void };

export const TOKEN_HELP = `Usage: ask-user-bridge token create --role ROLE [--name NAME]
       ask-user-bridge token create --role person --name NAME
       ask-user-bridge token list [--json]
       ask-user-bridge token revoke ID|NAME

Scoped credentials, kept in the gateway's store (SQLite under DATA_DIR, or PostgreSQL at DATABASE_URL), so run
these where the gateway's .env is. The gateway stores only a hash; \`create\` prints the token once (for a person,
its Control UI sign-in link on the next line: GATEWAY_PUBLIC_URL, or the gateway's address, with /#token=…).
Revoking a person's token also signs it out of the Control UI everywhere.
Roles:
  agent          ask, wait, get, list and cancel questions, and abort runs
  person         answer in the Control UI as NAME (required: ${PERSON_NAME_RULE}); sees only
                 questions sent to web (anyone signed in) or web:NAME, and answers as "on the web by NAME"
  ${BOT_ROLE_LINE}
GATEWAY_TOKEN stays the admin credential: it may do everything, and is what \`start\` uses to give its bots
bot-scoped tokens.`;

function row(c: Credential): string {
  const status = c.revokedAtMs === undefined ? "active" : `revoked ${new Date(c.revokedAtMs).toISOString()}`;
  return `${c.id.padEnd(14)}${c.role.padEnd(15)}${c.name.padEnd(24)}${new Date(c.createdAtMs).toISOString()}  ${status}`;
}

/** A person's name from --name: required, lowercased (as `web:NAME` targets read it), and PERSON_NAME_PATTERN. */
function personName(given: string | undefined): string {
  if (given === undefined || given.trim() === "") throw new UsageError("--name: a person's token needs the person's name (--role person --name alice)");
  const name = given.trim().toLowerCase();
  if (!PERSON_NAME_PATTERN.test(name)) throw new UsageError(`--name: "${given}" is not a person's name: ${PERSON_NAME_RULE}`);
  return name;
}

/** The Control UI's sign-in link for a token: GATEWAY_PUBLIC_URL, or the gateway's own host and port, then /#token=. */
function signInLink(config: Config, token: string): string {
  return `${controlUiUrl(config.GATEWAY_PUBLIC_URL ?? gatewayUrl({ ...config, GATEWAY_URL: undefined }))}#token=${token}`;
}

export async function runToken(argv: string[], config: Config, io: IO): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { role: { type: "string" }, name: { type: "string" }, json: { type: "boolean" } }, true);
  if (values.help) return io.out(TOKEN_HELP), 0;
  const [action, target, ...extra] = positionals;
  if (!action || !["create", "list", "revoke"].includes(action) || extra.length > 0) throw new UsageError("say create, list or revoke");
  const store = await openCredentialStore(config);
  try {
    if (action === "create") {
      const role = values.role ?? "";
      if (!isRole(role)) throw new UsageError(`--role: "${role}" is not a role; use one of ${ROLES.join(", ")}`);
      const name = role === "person" ? personName(values.name) : (values.name ?? role).trim();
      if (!/^[\w .:@-]{1,64}$/.test(name)) throw new UsageError("--name: 1-64 letters, digits, spaces and . : @ - _");
      const { id, token } = newScopedToken();
      await store.add({ id, name, role, createdAtMs: Date.now() }, hashToken(token));
      io.out(token);
      if (role === "person") {
        io.out(signInLink(config, token));
        io.err(`Created person credential ${id} (${name}). The token and its sign-in link above are shown once: give them to ${name} only.`);
      } else {
        io.err(`Created ${role} credential ${id} (${name}). The token above is shown once: store it now.`);
      }
      return 0;
    }
    if (action === "list") {
      const all = await store.list();
      if (values.json) io.out(JSON.stringify(all, null, 2));
      else io.out([`${"ID".padEnd(14)}${"ROLE".padEnd(15)}${"NAME".padEnd(24)}${"CREATED".padEnd(26)}STATUS`, ...all.map(row)].join("\n"));
      return 0;
    }
    if (!target) throw new UsageError("name the credential to revoke: its id or its name");
    const revoked = await store.revoke(target, Date.now());
    if (revoked.length === 0) {
      io.err(`no active credential with id or name "${target}"`);
      return 1;
    }
    for (const c of revoked) io.out(`revoked ${c.id} (${c.role}, ${c.name})`);
    return 0;
  } finally {
    await store.close();
  }
}
