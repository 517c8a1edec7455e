import { afterAll, expect, it } from "vitest";
import { killChildren, spawnCli, waitForOutput } from "../../helpers/cli.ts";
import { rpcOk, startTestGateway, TOKEN } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/bot-scenarios.ts";
import { cardButtons, startTeamsFake, TEAMS_CHATS, TEAMS_PEOPLE, TEAMS_TEST_APP, TEAMS_TEST_SERVICE_URL_HOSTS } from "./harness.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";

afterAll(async () => {
  await killChildren();
});

it("`ask-user-bridge bot teams` (the compiled CLI) serves /api/messages, delivers a card and takes a press; SIGTERM stops it cleanly", async () => {
  const fake = await startTeamsFake();
  const gateway = await startTestGateway({});
  try {
    const run = spawnCli(["bot", "teams"], {
      GATEWAY_URL: gateway.url,
      GATEWAY_TOKEN: TOKEN,
      DATA_DIR: tempDir("aub-teams-cli-"),
      TEAMS_APP_ID: TEAMS_TEST_APP.appId,
      TEAMS_TENANT_ID: TEAMS_TEST_APP.tenantId,
      TEAMS_AUTHORITY_URL: fake.authorityUrl,
      TEAMS_TOKEN_SIDECAR_URL: fake.sidecarUrl,
      TEAMS_HOST: "127.0.0.1",
      TEAMS_PORT: "0",
      TEAMS_ALLOWED_USERS: TEAMS_PEOPLE.person.id,
      TEAMS_SERVICE_URL_HOSTS: TEAMS_TEST_SERVICE_URL_HOSTS,
    });
    const [, endpoint] = await waitForOutput(run, /messaging endpoint: POST (http:\/\/[^\s"\\]+)/);
    fake.useBot(endpoint!);
    expect(await fake.install(TEAMS_CHATS.chat)).toBe(200);
    await waitForOutput(run, /kept the conversation reference of teams:19:chan-one@thread\.tacv2 \(channel\)/);
    const { id } = await rpcOk(gateway.url, "question.request", {
      questions: [{ id: "target", header: "Target", question: "Where?", options: [{ label: "Staging" }, { label: "Production" }] }],
      targets: [{ surface: "teams", chat: TEAMS_CHATS.chat }],
    });
    const card = await waitUntil(() => fake.botMessages(TEAMS_CHATS.chat).find((m) => m.card), "the card", 20_000);
    expect(cardButtons(card.card)).toEqual(["Staging", "Production", "Other…", "Skip"]);
    expect(await fake.submit(card, TEAMS_PEOPLE.person.id, card.card.actions[1].data)).toBe(200);
    expect(await rpcOk(gateway.url, "question.waitAnswer", { id, timeoutMs: 10_000 })).toMatchObject({ status: "answered", answers: { answers: { target: ["Production"] } } });
    await waitUntil(() => fake.message(card.id).updates > 0 && !fake.message(card.id).card.actions, "the summary card");
    run.child.kill("SIGTERM");
    const exit = await run.exited;
    expect(exit.code).toBe(0);
    // Every line is the bot's own JSON log: the SDK printed nothing of its own.
    for (const line of exit.stdout.trim().split("\n")) expect(JSON.parse(line)).toMatchObject({ name: "bot:teams" });
  } finally {
    await gateway.close();
    await fake.close();
  }
}, 90_000);
