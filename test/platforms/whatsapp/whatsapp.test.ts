import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { createWhatsAppHarness } from "./harness.ts";
import { whatsappDeliveryKit } from "./delivery-kit.ts";

runBotScenarios("whatsapp", createWhatsAppHarness);
runDeliveryScenarios("whatsapp", whatsappDeliveryKit);
runFollowUpScenarios("whatsapp", createWhatsAppHarness);
