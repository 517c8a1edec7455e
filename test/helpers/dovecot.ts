/**
 * A real Dovecot (Debian's dovecot-imapd) for the IMAP tests: one server on 127.0.0.1 and a free port, started from a
 * config file in a temp folder (`dovecot -c FILE -F`), with one passwd-file user and maildirs under that folder, and
 * stopped and removed by `stop()`. As root, its login processes run as `dovenull` and its internal ones as `dovecot`
 * (Dovecot refuses root for them), the mail belongs to `dovecot`, and the temp folder is opened (0755) so that they
 * reach it; as anyone else, every process is that user's. `.ci/run` installs the package; `dovecotMissing()` says
 * why none can start here (the test files then fail under CI and skip with that reason elsewhere).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";
import { tempDir } from "./temp-dirs.ts";

export const DOVECOT_BINARY = "/usr/sbin/dovecot";
export const IMAP_USER = "bot";
export const IMAP_PASS = "imap-secret-pass-7d1f";

export interface TestDovecot {
  host: string;
  port: number;
  /** imap://bot:…@127.0.0.1:port/INBOX (a mailbox path appended when given). */
  url(mailbox?: string, pass?: string): string;
  /** What Dovecot logged (for a failing test's message). */
  log(): string;
  stop(): Promise<void>;
}

export interface DovecotOptions {
  /** No IDLE in the capabilities the server announces (the bot then polls). */
  withoutIdle?: boolean;
}

/** Why no Dovecot can start on this machine, or undefined when one can. */
export function dovecotMissing(): string | undefined {
  if (!existsSync(DOVECOT_BINARY)) return `${DOVECOT_BINARY} is not installed`;
  if (process.getuid?.() === 0 && spawnSync("id", ["dovecot"]).status !== 0) return "the dovecot user is missing (reinstall dovecot-core)";
  return undefined;
}

/** The capabilities Dovecot 2.3 announces after login, IDLE left out. */
const WITHOUT_IDLE = "IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE LITERAL+ UIDPLUS MOVE NAMESPACE UNSELECT CHILDREN SPECIAL-USE";

function idOf(name: string): { uid: number; gid: number } {
  const out = (flag: string) => Number(spawnSync("id", [flag, name], { encoding: "utf8" }).stdout.trim());
  return { uid: out("-u"), gid: out("-g") };
}

const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("data", (chunk) => {
      socket.destroy();
      resolve(chunk.toString().startsWith("* OK"));
    });
    socket.once("error", () => resolve(false));
  });

export async function startDovecot(options: DovecotOptions = {}): Promise<TestDovecot> {
  const missing = dovecotMissing();
  if (missing) throw new Error(`no Dovecot: ${missing}`);
  const dir = tempDir("aub-dovecot-");
  chmodSync(dir, 0o755);
  const root = process.getuid?.() === 0;
  const me = userInfo().username;
  const mailOwner = root ? "dovecot" : me;
  const { uid, gid } = idOf(mailOwner);
  const mail = join(dir, "mail");
  mkdirSync(mail, { mode: 0o700 });
  chownSync(mail, uid, gid);
  writeFileSync(join(dir, "users"), `${IMAP_USER}:{PLAIN}${IMAP_PASS}\n`, { mode: 0o644 });
  const port = await freePort();
  const logFile = join(dir, "dovecot.log");
  const config = join(dir, "dovecot.conf");
  writeFileSync(
    config,
    [
      `base_dir = ${join(dir, "run")}`,
      `state_dir = ${join(dir, "state")}`,
      `log_path = ${logFile}`,
      `instance_name = aub-${port}`,
      "protocols = imap",
      "listen = 127.0.0.1",
      "ssl = no",
      "disable_plaintext_auth = no",
      "auth_mechanisms = plain login",
      // A refused login is answered at once (the default waits 2 s), so the retry tests stay fast.
      "auth_failure_delay = 0",
      `default_login_user = ${root ? "dovenull" : me}`,
      `default_internal_user = ${root ? "dovecot" : me}`,
      "first_valid_uid = 1",
      `mail_location = maildir:${mail}/%u`,
      ...(options.withoutIdle ? [`imap_capability = ${WITHOUT_IDLE}`] : []),
      `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN ${join(dir, "users")}\n}`,
      `userdb {\n  driver = static\n  args = uid=${uid} gid=${gid} home=${mail}/%u\n}`,
      `service imap-login {\n  chroot =\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}`,
      // A maildir's other mailboxes (the done mailbox) are made on first use.
      "namespace inbox {\n  inbox = yes\n}",
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(DOVECOT_BINARY, ["-c", config, "-F"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const log = () => `${output}${existsSync(logFile) ? readFileSync(logFile, "utf8") : ""}`;
  const kill = () => child.exitCode === null && child.kill("SIGTERM");
  process.once("exit", kill);
  const deadline = Date.now() + 15_000;
  while (!(await accepting(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      kill();
      throw new Error(`Dovecot did not start on port ${port}:\n${log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    host: "127.0.0.1",
    port,
    url: (mailbox = "INBOX", pass = IMAP_PASS) => `imap://${IMAP_USER}:${encodeURIComponent(pass)}@127.0.0.1:${port}/${encodeURIComponent(mailbox)}`,
    log,
    async stop() {
      process.off("exit", kill);
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
