/**
 * The three cross-platform suites on the in-memory platform (the real bridge and gateway, no framework); what the
 * platform recorded of the bridge's effects is in specifics.test.ts.
 */
import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { createMemoryHarness } from "./harness.ts";
import { memoryDeliveryKit } from "./delivery-kit.ts";

runBotScenarios("memory", createMemoryHarness);
runDeliveryScenarios("memory", memoryDeliveryKit);
runFollowUpScenarios("memory", createMemoryHarness, "virtual");
