import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { mattermostDeliveryKit } from "./delivery-kit.ts";
import { createMattermostHarness } from "./harness.ts";

runBotScenarios("mattermost", () => createMattermostHarness());
runDeliveryScenarios("mattermost", mattermostDeliveryKit);
runFollowUpScenarios("mattermost", () => createMattermostHarness());
