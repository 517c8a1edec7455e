// The CLI entry: the only place besides bots/ that reads .env.
import { config as loadDotenv } from "dotenv";
import { main } from "../src/cli/main.ts";

loadDotenv({ quiet: true });
process.exitCode = await main(process.argv.slice(2), process.env);
