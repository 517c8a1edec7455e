import { createSlackHarness } from "./harness.ts";
import { slackDeliveryKit } from "./delivery-kit.ts";
import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";

runBotScenarios("slack", () => createSlackHarness("socket"));
runDeliveryScenarios("slack", slackDeliveryKit);
runFollowUpScenarios("slack", () => createSlackHarness("socket"), "smoke");
