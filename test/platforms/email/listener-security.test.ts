/** Where the SMTP listener binds and how it guards EMAIL_INBOUND_AUTH (bots/email/listener-security.ts). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isLoopbackHost, listenerSecurityOf } from "../../../bots/email/listener-security.ts";
import { loadConfig } from "../../../src/runtime/config.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";
import { selfSignedCertificate } from "./tls-fixture.ts";

const AUTH = "relay:relay-pass-not-real";
const configOf = (env: Record<string, string>) => loadConfig({ GATEWAY_TOKEN: "x".repeat(32), ...env });

describe("the listener's bind and AUTH rules", () => {
  it.each([
    ["localhost", true],
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["::1", true],
    ["[::1]", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.5", false],
    ["::ffff:10.0.0.5", false],
    ["::2", false],
    ["mail.internal", false],
  ])("%s is on the loopback: %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it("binds 127.0.0.1 unless EMAIL_INBOUND_HOST says otherwise, whatever GATEWAY_HOST is", () => {
    expect(listenerSecurityOf(configOf({ GATEWAY_HOST: "0.0.0.0", EMAIL_INBOUND_AUTH: AUTH }))).toEqual({ host: "127.0.0.1", plainAuth: true });
    expect(listenerSecurityOf(configOf({ EMAIL_INBOUND_HOST: "10.0.0.5" }))).toEqual({ host: "10.0.0.5", plainAuth: false });
  });

  it.each([
    [{ EMAIL_INBOUND_HOST: "0.0.0.0", EMAIL_INBOUND_ALLOW_PLAIN_AUTH: "true", EMAIL_INBOUND_AUTH: AUTH }, { host: "0.0.0.0", plainAuth: true }],
    [{ EMAIL_INBOUND_HOST: "0.0.0.0", EMAIL_INBOUND_ALLOW_PLAIN_AUTH: "1" }, { host: "0.0.0.0", plainAuth: true }],
    [{ EMAIL_INBOUND_HOST: "0.0.0.0", EMAIL_INBOUND_ALLOW_PLAIN_AUTH: "false", EMAIL_INBOUND_AUTH: AUTH }, /EMAIL_INBOUND_AUTH: the listener binds 0\.0\.0\.0, off the loopback.*EMAIL_INBOUND_TLS_CERT and EMAIL_INBOUND_TLS_KEY.*EMAIL_INBOUND_ALLOW_PLAIN_AUTH=true/su],
    [{ EMAIL_INBOUND_HOST: "::", EMAIL_INBOUND_AUTH: AUTH }, /EMAIL_INBOUND_AUTH: the listener binds ::, off the loopback/su],
  ])("off the loopback without a certificate: %j gives %s", (env, expected) => {
    const run = () => listenerSecurityOf(configOf(env));
    if (expected instanceof RegExp) expect(run).toThrow(expected);
    else expect(run()).toEqual(expected);
  });

  it("reads the certificate and key, offers STARTTLS with them, and then takes AUTH off the loopback only after it", () => {
    const { cert, key } = selfSignedCertificate();
    expect(listenerSecurityOf(configOf({ EMAIL_INBOUND_HOST: "0.0.0.0", EMAIL_INBOUND_AUTH: AUTH, EMAIL_INBOUND_TLS_CERT: cert, EMAIL_INBOUND_TLS_KEY: key }))).toMatchObject({
      host: "0.0.0.0",
      plainAuth: false,
      tls: { cert: expect.any(Buffer), key: expect.any(Buffer) },
    });
  });

  it("refuses a certificate without its key, an unreadable file, and a file that is no certificate, naming the variable", () => {
    const { cert, key } = selfSignedCertificate();
    const other = selfSignedCertificate();
    const dir = tempDir("aub-tls-");
    const junk = join(dir, "junk.pem");
    writeFileSync(junk, "not a certificate\n");
    const run = (env: Record<string, string>) => () => listenerSecurityOf(configOf(env));
    expect(run({ EMAIL_INBOUND_TLS_CERT: cert })).toThrow(/EMAIL_INBOUND_TLS_KEY: is missing; STARTTLS needs both/u);
    expect(run({ EMAIL_INBOUND_TLS_KEY: key })).toThrow(/EMAIL_INBOUND_TLS_CERT: is missing/u);
    expect(run({ EMAIL_INBOUND_TLS_CERT: join(dir, "absent.pem"), EMAIL_INBOUND_TLS_KEY: key })).toThrow(/EMAIL_INBOUND_TLS_CERT: cannot read .*absent\.pem \(ENOENT\)/u);
    expect(run({ EMAIL_INBOUND_TLS_CERT: junk, EMAIL_INBOUND_TLS_KEY: key })).toThrow(/EMAIL_INBOUND_TLS_CERT, EMAIL_INBOUND_TLS_KEY: not a PEM certificate and its private key/u);
    expect(run({ EMAIL_INBOUND_TLS_CERT: cert, EMAIL_INBOUND_TLS_KEY: other.key })).toThrow(/not a PEM certificate and its private key \(.*mismatch/iu);
  });

  it("takes EMAIL_INBOUND_ALLOW_PLAIN_AUTH as a yes or no only", () => {
    expect(() => configOf({ EMAIL_INBOUND_ALLOW_PLAIN_AUTH: "yes please" })).toThrow(/EMAIL_INBOUND_ALLOW_PLAIN_AUTH.*"1" or "true"/su);
    expect(configOf({}).EMAIL_INBOUND_ALLOW_PLAIN_AUTH).toBe(false);
  });
});
