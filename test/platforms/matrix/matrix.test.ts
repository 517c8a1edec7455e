import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { createMatrixHarness } from "./harness.ts";
import { matrixDeliveryKit } from "./delivery-kit.ts";

runBotScenarios("matrix", createMatrixHarness);
runDeliveryScenarios("matrix", matrixDeliveryKit);
runFollowUpScenarios("matrix", createMatrixHarness, "smoke");
