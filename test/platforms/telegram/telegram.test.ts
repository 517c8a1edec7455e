import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { createTelegramHarness } from "./harness.ts";
import { telegramDeliveryKit } from "./delivery-kit.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";

runBotScenarios("telegram", createTelegramHarness);
runDeliveryScenarios("telegram", telegramDeliveryKit);
runFollowUpScenarios("telegram", createTelegramHarness, "smoke");
