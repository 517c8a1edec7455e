/** A fresh self-signed certificate for localhost and 127.0.0.1 (an EC key), made by the openssl CLI into a temp folder. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../helpers/temp-dirs.ts";

export interface CertificateFiles {
  /** The paths, as EMAIL_INBOUND_TLS_CERT and EMAIL_INBOUND_TLS_KEY take them. */
  cert: string;
  key: string;
  /** The certificate's PEM, for a client to trust. */
  pem: string;
}

export function selfSignedCertificate(): CertificateFiles {
  const dir = tempDir("aub-tls-");
  const [cert, key] = [join(dir, "cert.pem"), join(dir, "key.pem")];
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", cert,
  ], { stdio: "ignore" });
  return { cert, key, pem: readFileSync(cert, "utf8") };
}
