import { CloudAdapter } from "@microsoft/agents-hosting";
import { describe, expect, it } from "vitest";
import { startTeamsBot, teamsAuthConfiguration } from "../../../bots/teams/index.ts";
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
});
