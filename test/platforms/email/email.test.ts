import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { createEmailHarness } from "./harness.ts";
import { emailDeliveryKit } from "./delivery-kit.ts";

runBotScenarios("email", createEmailHarness);
runDeliveryScenarios("email", emailDeliveryKit);
runFollowUpScenarios("email", createEmailHarness);
