/**
 * Where the SMTP listener binds and how it guards EMAIL_INBOUND_AUTH (issue 37 §6), worked out from the config at
 * start, before anything listens. It binds 127.0.0.1 unless EMAIL_INBOUND_HOST says otherwise. With
 * EMAIL_INBOUND_TLS_CERT and EMAIL_INBOUND_TLS_KEY (PEM files, read once, here) it offers STARTTLS. AUTH goes in
 * cleartext only on a loopback listener or with EMAIL_INBOUND_ALLOW_PLAIN_AUTH=true; elsewhere a relay must STARTTLS
 * first (smtp-server answers 538). A listener off the loopback that asks for AUTH but has no certificate and no
 * EMAIL_INBOUND_ALLOW_PLAIN_AUTH does not start: it would either send the password in cleartext or take no mail at
 * all, and a ConfigError naming the three ways out says more than a listener that refuses every relay.
 */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { createSecureContext } from "node:tls";
import { ConfigError, type Config } from "../../src/runtime/config.ts";

/** The interface the listener binds when EMAIL_INBOUND_HOST is unset. */
export const EMAIL_INBOUND_DEFAULT_HOST = "127.0.0.1";

export interface ListenerSecurity {
  host: string;
  /** The PEM certificate (chain) and key STARTTLS offers; undefined: no STARTTLS. */
  tls?: { cert: Buffer; key: Buffer };
  /** AUTH before (or without) STARTTLS. */
  plainAuth: boolean;
}

type SecurityConfig = Pick<Config, "EMAIL_INBOUND_HOST" | "EMAIL_INBOUND_AUTH" | "EMAIL_INBOUND_TLS_CERT" | "EMAIL_INBOUND_TLS_KEY" | "EMAIL_INBOUND_ALLOW_PLAIN_AUTH">;

/** `localhost`, 127.0.0.0/8 and ::1 (also IPv4-mapped): only this machine can reach a listener there. */
export function isLoopbackHost(host: string): boolean {
  const plain = host.trim().replace(/^\[(.*)\]$/u, "$1").toLowerCase();
  if (plain === "localhost") return true;
  if (isIP(plain) === 4) return plain.startsWith("127.");
  if (isIP(plain) !== 6) return false;
  try {
    // The URL parser writes IPv6 in its one short form: ::1, and ::ffff:7fxx:xxxx for a mapped 127.x.x.x.
    const short = new URL(`http://[${plain}]`).hostname.slice(1, -1);
    return short === "::1" || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/u.test(short);
  } catch {
    return false;
  }
}

function readPem(variable: string, path: string, read: (path: string) => Buffer): Buffer {
  try {
    return read(path);
  } catch (error) {
    throw new ConfigError([`${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`]);
  }
}

export function listenerSecurityOf(config: SecurityConfig, read: (path: string) => Buffer = readFileSync): ListenerSecurity {
  const host = config.EMAIL_INBOUND_HOST ?? EMAIL_INBOUND_DEFAULT_HOST;
  const { EMAIL_INBOUND_TLS_CERT: certPath, EMAIL_INBOUND_TLS_KEY: keyPath } = config;
  if ((certPath === undefined) !== (keyPath === undefined)) {
    throw new ConfigError([`${certPath === undefined ? "EMAIL_INBOUND_TLS_CERT" : "EMAIL_INBOUND_TLS_KEY"}: is missing; STARTTLS needs both EMAIL_INBOUND_TLS_CERT and EMAIL_INBOUND_TLS_KEY (PEM files)`]);
  }
  let tls: ListenerSecurity["tls"];
  if (certPath !== undefined && keyPath !== undefined) {
    tls = { cert: readPem("EMAIL_INBOUND_TLS_CERT", certPath, read), key: readPem("EMAIL_INBOUND_TLS_KEY", keyPath, read) };
    try {
      createSecureContext(tls);
    } catch (error) {
      // OpenSSL's words ("key values mismatch", "no start line") say which; the files hold a private key, so no content.
      throw new ConfigError([`EMAIL_INBOUND_TLS_CERT, EMAIL_INBOUND_TLS_KEY: not a PEM certificate and its private key (${(error as Error).message})`]);
    }
  }
  const plainAuth = isLoopbackHost(host) || config.EMAIL_INBOUND_ALLOW_PLAIN_AUTH;
  if (config.EMAIL_INBOUND_AUTH !== undefined && !tls && !plainAuth) {
    throw new ConfigError([
      `EMAIL_INBOUND_AUTH: the listener binds ${host}, off the loopback, so the relay's password would cross the network in cleartext: set EMAIL_INBOUND_TLS_CERT and EMAIL_INBOUND_TLS_KEY (STARTTLS), bind the loopback (EMAIL_INBOUND_HOST=127.0.0.1), or set EMAIL_INBOUND_ALLOW_PLAIN_AUTH=true on a network you trust`,
    ]);
  }
  return { host, ...(tls ? { tls } : {}), plainAuth };
}
