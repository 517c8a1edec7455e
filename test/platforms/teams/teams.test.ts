import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { teamsDeliveryKit } from "./delivery-kit.ts";
import { createTeamsHarness } from "./harness.ts";

runBotScenarios("teams", createTeamsHarness);
runDeliveryScenarios("teams", teamsDeliveryKit);
runFollowUpScenarios("teams", createTeamsHarness);
