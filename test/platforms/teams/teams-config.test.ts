import { CloudAdapter } from "@microsoft/agents-hosting";
import { describe, expect, it } from "vitest";
import { startTeamsBot, teamsAuthConfiguration } from "../../../bots/teams/index.ts";
import { BOT_FRAMEWORK_ISSUERS, createServiceUrlPolicy, trustOf } from "../../../bots/teams/trust.ts";
import { TEAMS_SERVICE_URL_HOSTS_DEFAULT } from "../../../src/platforms/teams/platform.ts";
import { BOT_SECRETS, ConfigError, loadConfig } from "../../../src/runtime/config.ts";

const base = { GATEWAY_TOKEN: "x".repeat(32), TEAMS_APP_ID: "6f0b7c1e-2d3a-4b5c-8d9e-0a1b2c3d4e5f", TEAMS_TENANT_ID: "72f988bf-86f1-41af-91ab-2d7cd011db47" };

describe("teams: configuration", () => {
  it("with a client secret: the SDK's ClientSecret connection for the app, its tenant's issuers, issuer checked", () => {
    const auth = teamsAuthConfiguration(loadConfig({ ...base, TEAMS_APP_PASSWORD: "Abc8Q~secret" }) as never);
    expect(auth).toMatchObject({ clientId: base.TEAMS_APP_ID, tenantId: base.TEAMS_TENANT_ID, authType: "ClientSecret", clientSecret: "Abc8Q~secret", validateIssuer: true });
    const adapter = new CloudAdapter(auth);
    expect(adapter.getClientId()).toBe(base.TEAMS_APP_ID);
  });

  it("with the Entra SDK sidecar: no secret needed", () => {
    const auth = teamsAuthConfiguration(loadConfig({ ...base, TEAMS_TOKEN_SIDECAR_URL: "http://localhost:5178/" }) as never);
    expect(auth).toMatchObject({ authType: "EntraAuthSideCar", sidecarBaseUrl: "http://localhost:5178" });
    expect(auth).not.toHaveProperty("clientSecret");
  });

  it("what is missing is named", async () => {
    expect(() => teamsAuthConfiguration(loadConfig(base) as never)).toThrow(/TEAMS_APP_PASSWORD: is required/);
    expect(() => teamsAuthConfiguration(loadConfig({ ...base, TEAMS_TENANT_ID: "", TEAMS_APP_PASSWORD: "p" }) as never)).toThrow(/TEAMS_TENANT_ID: is required/);
    await expect(startTeamsBot(loadConfig({ GATEWAY_TOKEN: base.GATEWAY_TOKEN }))).rejects.toThrow(ConfigError);
  });

  it("the app password is a secret (kept out of answers and logs); the port defaults to 3978", () => {
    expect(BOT_SECRETS).toContain("TEAMS_APP_PASSWORD");
    expect(loadConfig(base).TEAMS_PORT).toBe(3978);
    expect(loadConfig({ ...base, TEAMS_ALLOWED_USERS: "0a0a0a0a-0000-4000-8000-00000000ada1, 0b0b0b0b-0000-4000-8000-0000000096ac" }).TEAMS_ALLOWED_USERS).toHaveLength(2);
  });

  it("TEAMS_SERVICE_URL_HOSTS: a comma list of hosts (`*.` for subdomains), lower-cased; a URL or a bare `*` is refused by name", () => {
    expect(loadConfig(base).TEAMS_SERVICE_URL_HOSTS).toBeUndefined();
    expect(loadConfig({ ...base, TEAMS_SERVICE_URL_HOSTS: " smba.teams.sovcloud-core.fr, *.BotFramework.com ,127.0.0.1" }).TEAMS_SERVICE_URL_HOSTS).toEqual(["smba.teams.sovcloud-core.fr", "*.botframework.com", "127.0.0.1"]);
    for (const bad of ["https://smba.trafficmanager.net/", "*", "smba.trafficmanager.net:443", "a..b"]) {
      expect(() => loadConfig({ ...base, TEAMS_SERVICE_URL_HOSTS: bad })).toThrow(/TEAMS_SERVICE_URL_HOSTS/);
    }
  });

  it.each([
    ["https://smba.trafficmanager.net/amer/", true],
    ["https://smba.trafficmanager.net/teams/", true],
    ["https://smba.infra.gcc.teams.microsoft.com/gcc/", true],
    ["https://smba.infra.dod.teams.microsoft.us/", true],
    ["https://webchat.botframework.com/", true],
    ["https://europe.webchat.botframework.com/", true],
    ["https://botframework.com/", false], // `*.` is its subdomains only
    ["https://x.smba.trafficmanager.net/", false], // an entry without `*.` is that host only
    ["https://smba.trafficmanager.net.attacker.example/", false],
    ["https://attacker-botframework.com/", false],
    ["http://smba.trafficmanager.net/amer/", false], // the token never crosses a network in clear
    ["https://127.0.0.1:3979/", false],
    ["not a url", false],
  ])("the default service URL hosts: %s → %s", (url, allowed) => {
    expect(createServiceUrlPolicy(TEAMS_SERVICE_URL_HOSTS_DEFAULT).isAllowed(url)).toBe(allowed);
  });

  it("a test's list takes the loopback over plain http, any port", () => {
    const policy = createServiceUrlPolicy(["127.0.0.1"]);
    expect(policy.enabled).toBe(true);
    expect(policy.isAllowed("http://127.0.0.1:40123/")).toBe(true);
    expect(policy.isAllowed("http://localhost:40123/")).toBe(false);
  });

  it("only the Bot Framework's issuers name a person; a token names a service URL only with a serviceurl claim", () => {
    expect(trustOf({ iss: "https://api.botframework.com", serviceurl: "https://smba.trafficmanager.net/amer/" })).toEqual({ botFramework: true, namesServiceUrl: true, issuer: "https://api.botframework.com" });
    expect(trustOf({ iss: `https://sts.windows.net/${base.TEAMS_TENANT_ID}/` }).botFramework).toBe(false);
    expect(trustOf({ iss: `https://login.microsoftonline.com/${base.TEAMS_TENANT_ID}/v2.0` }).botFramework).toBe(false);
    expect(trustOf({ iss: "https://login.microsoftonline.com/d6d49420-f39b-4df7-a1dc-d59a935871db/v2.0" })).toMatchObject({ botFramework: true, namesServiceUrl: false });
    expect(trustOf(undefined)).toEqual({ botFramework: false, namesServiceUrl: false, issuer: "" });
    expect([...BOT_FRAMEWORK_ISSUERS].every((issuer) => issuer === issuer.toLowerCase())).toBe(true);
  });
});
