import { AuthType, CloudAdapter, type AuthConfiguration, type TurnContext } from "@microsoft/agents-hosting";
import { ConfigError, requireConfig, type Config } from "../../src/runtime/config.ts";
import { cutToFit } from "../../src/render/index.ts";
import { toTeamsText } from "../../src/platforms/teams/escaping.ts";
import { createLog, startBridgeBot, type Log, type RunningBot } from "../shared.ts";
import { createTeamsAdapter, TEAMS_TEXT_MAX } from "./adapter.ts";
import { createTeamsConnector } from "./connector.ts";
import type { TeamsPace } from "./pacer.ts";
import { createTeamsInbound, type TeamsInbound } from "./inbound.ts";
import { createTeamsReferenceStore } from "./references.ts";
import { listenForActivities, TEAMS_MESSAGES_PATH } from "./server.ts";
import { createServiceUrlPolicy } from "./trust.ts";
import { TEAMS_SERVICE_URL_HOSTS_DEFAULT } from "../../src/platforms/teams/platform.ts";

/** The scope of the bot's tokens for the Bot Connector (what the SDK asks for its ConnectorClient). */
const BOT_CONNECTOR_SCOPE = "https://api.botframework.com";

export interface TeamsBotOptions {
  log?: Log;
  /** Overrides TEAMS_PACE (Teams' limits the bot keeps to). */
  pace?: TeamsPace;
}

export interface RunningTeamsBot extends RunningBot {
  /** The bound port (TEAMS_PORT, or the one picked for 0). */
  port: number;
}

/**
 * The SDK's authentication for the one connection: inbound tokens must be for TEAMS_APP_ID, from an accepted issuer
 * (the Bot Framework, or the tenant's Entra authority), signed with that issuer's published keys; outbound tokens
 * come from Entra with the client secret, or from the Entra SDK sidecar when TEAMS_TOKEN_SIDECAR_URL is set.
 */
export function teamsAuthConfiguration(config: Config & { TEAMS_APP_ID: string }): AuthConfiguration {
  const common = {
    clientId: config.TEAMS_APP_ID,
    ...(config.TEAMS_TENANT_ID ? { tenantId: config.TEAMS_TENANT_ID } : {}),
    ...(config.TEAMS_AUTHORITY_URL ? { authorityEndpoint: config.TEAMS_AUTHORITY_URL.replace(/\/+$/u, "") } : {}),
    validateIssuer: true,
  };
  if (config.TEAMS_TOKEN_SIDECAR_URL) return { ...common, authType: AuthType.EntraAuthSideCar, sidecarBaseUrl: config.TEAMS_TOKEN_SIDECAR_URL.replace(/\/+$/u, "") };
  if (!config.TEAMS_APP_PASSWORD) throw new ConfigError(["TEAMS_APP_PASSWORD: is required for the Teams bot (or set TEAMS_TOKEN_SIDECAR_URL to get tokens from the Entra SDK sidecar)"]);
  if (!config.TEAMS_TENANT_ID) throw new ConfigError(["TEAMS_TENANT_ID: is required for the Teams bot with a client secret (the app registration's tenant)"]);
  return { ...common, authType: AuthType.ClientSecret, clientSecret: config.TEAMS_APP_PASSWORD };
}

/** The Teams bot: the Microsoft 365 Agents SDK's CloudAdapter behind POST /api/messages on TEAMS_HOST:TEAMS_PORT. */
export async function startTeamsBot(config: Config, options: TeamsBotOptions = {}): Promise<RunningTeamsBot> {
  const required = requireConfig(config, ["TEAMS_APP_ID"]);
  const log = options.log ?? createLog("teams");
  // validateServiceUrl: an activity's serviceUrl must be on the host its token was issued for. The outbound host
  // check: an activity's serviceUrl, and every conversation the bot sends to, must be on TEAMS_SERVICE_URL_HOSTS (the
  // Bot Connector's hosts by default), so no token that names no service URL can make the bot store or post elsewhere.
  const serviceUrls = createServiceUrlPolicy(config.TEAMS_SERVICE_URL_HOSTS ?? TEAMS_SERVICE_URL_HOSTS_DEFAULT);
  const cloud = new CloudAdapter(teamsAuthConfiguration(required), undefined, undefined, { validateServiceUrl: true }, serviceUrls);
  // The SDK's default tells the person "The agent encountered an error or bug."; here a failed turn is only logged.
  cloud.onTurnError = async (_context, error) => log("a turn failed", error);
  const references = createTeamsReferenceStore(config.DATA_DIR, log);
  const connector = createTeamsConnector(cloud, required.TEAMS_APP_ID, options.pace, serviceUrls);
  let inbound: TeamsInbound | undefined;
  /** Turns still being handled: a stop waits for them. */
  const inflight = new Set<Promise<void>>();

  const turn = async (context: TurnContext) => {
    if (!inbound) return;
    // Answer the channel at once (it retries a slow request); the bridge's work goes on after the 200.
    const work = inbound.handle(context.activity, context.identity).catch((error: unknown) => log(`an activity of type ${context.activity.type} failed`, error));
    inflight.add(work);
    void work.finally(() => inflight.delete(work));
  };

  return startBridgeBot({
    config,
    log,
    allowedUsers: config.TEAMS_ALLOWED_USERS,
    // Other… is an Action.ShowCard with its own text field: the words come in the card's submit, like a modal's.
    otherOpens: "modal",
    adapter: createTeamsAdapter(connector, references, log),
    toPlatformText: (text) => cutToFit(text, TEAMS_TEXT_MAX, toTeamsText),
    listen: (bridge) => void (inbound = createTeamsInbound({ bridge, connector, references, tenantId: config.TEAMS_TENANT_ID, log })),
    async start(deliver) {
      await deliver();
      const host = config.TEAMS_HOST ?? config.GATEWAY_HOST;
      const endpoint = await listenForActivities(cloud, turn, host, config.TEAMS_PORT, log);
      log(`messaging endpoint: POST http://${host}:${endpoint.port}${TEAMS_MESSAGES_PATH}`);
      // A wrong App ID, secret or tenant shows now, by name, rather than at the first prompt; an outage only delays it.
      void cloud.connectionManager
        .getDefaultConnection()
        .getAccessToken(BOT_CONNECTOR_SCOPE)
        .catch((error: unknown) =>
          log(`could not get a token for the Bot Connector (check TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID, or TEAMS_TOKEN_SIDECAR_URL); prompts will be tried again`, error),
        );
      return {
        port: endpoint.port,
        async stop() {
          await endpoint.close();
          await Promise.allSettled([...inflight]);
        },
      };
    },
  });
}

/** The entry the CLI loads by platform name (`ask-user-bridge bot teams`). */
export { startTeamsBot as startBot };
