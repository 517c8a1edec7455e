import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { createMattermostHarness } from "./harness.ts";

runBotScenarios("mattermost", () => createMattermostHarness());
runFollowUpScenarios("mattermost", () => createMattermostHarness());
