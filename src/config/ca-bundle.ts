import { ConfigError } from '../errors.js';
import { MAX_CA_BUNDLE_BYTES, readConfiguredFile } from './bounded-read.js';

/** The text of a PEM file of CA certificates (--cacert, PLANTSTORE_CA_CERT). */
export async function readCaBundle(file: string, source: string, signal?: AbortSignal): Promise<string> {
  // Bounded: --cacert /dev/zero, or a FIFO that never ends, stops here instead of filling memory.
  const pem = await readConfiguredFile(
    file,
    MAX_CA_BUNDLE_BYTES,
    {
      unreadable: `cannot read the CA bundle ${file} (from ${source})`,
      advice: `point ${source} at a readable PEM file of CA certificates`,
      tooLarge: `the CA bundle ${file} (from ${source}) holds more than ${MAX_CA_BUNDLE_BYTES / (1024 * 1024)} MiB: too large to be a PEM bundle of CA certificates`,
    },
    signal,
  );
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(
      `${file} (from ${source}) holds no PEM certificate (-----BEGIN CERTIFICATE-----); point ${source} at the CA's certificates in PEM form`,
    );
  }
  return pem;
}
