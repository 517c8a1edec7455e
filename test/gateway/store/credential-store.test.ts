/**
 * The credential-store contract (test/gateway/store/credential-store-contract.ts) against memory and SQLite, each opened as the
 * gateway opens it: openStores with the question store beside it; another SQLite store on the same DATA_DIR is
 * the `token` command's (openCredentialStore) while the gateway runs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openCredentialStore, openStores, type Stores, type StoresConfig } from "../../../src/gateway/store/open-stores.ts";
import type { CredentialStore } from "../../../src/gateway/store/kit/credentials.ts";
import { runCredentialStoreContract } from "./credential-store-contract.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";

runCredentialStoreContract("memory", async () => {
  const stores = await openStores({ STORE: "memory", DATA_DIR: "unused" });
  return { store: stores.credentials, cleanup: () => stores.close() };
});

runCredentialStoreContract("sqlite", async () => {
  const config: StoresConfig = { STORE: "sqlite", DATA_DIR: tempDir("aub-credentials-") };
  let stores: Stores = await openStores(config);
  const others: CredentialStore[] = [];
  return {
    store: stores.credentials,
    reopen: async () => {
      await stores.close();
      stores = await openStores(config);
      return stores.credentials;
    },
    openAnother: async () => {
      const other = await openCredentialStore(config);
      others.push(other);
      return other;
    },
    cleanup: async () => {
      await Promise.all([stores.close(), ...others.map((other) => other.close())]);
      fs.rmSync(config.DATA_DIR, { recursive: true, force: true });
    },
  };
});
