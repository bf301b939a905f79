/**
 * Taking certificates apart and putting them together again, for the tests
 * that tamper with them (tests/unit/proof.test.ts, proof-pooled.test.ts).
 * Format: docs/proofs.md (gzip of a JSON header line, then the keys).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { fingerprintKeys } from '../../client-sdk/core/proof/check.js';
import { KEY_BYTES, type CertificateHeader } from '../../client-sdk/core/proof/format.js';

/** The parts of a certificate: its header and its keys (KEY_BYTES each, copies). */
export function openCertificate(certificate: Uint8Array): { header: CertificateHeader; keys: Uint8Array[] } {
  const raw = gunzipSync(certificate);
  const nl = raw.indexOf(0x0a);
  const header = JSON.parse(raw.subarray(0, nl).toString('utf8')) as CertificateHeader;
  const body = raw.subarray(nl + 1);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < body.length; i += KEY_BYTES) keys.push(new Uint8Array(body.subarray(i, i + KEY_BYTES)));
  return { header, keys };
}

/** A certificate from parts; `consistent` rewrites the count and the fingerprint to match the keys. */
export function sealCertificate(header: object, keys: Uint8Array[], consistent = true): Uint8Array {
  const body = Buffer.concat(keys);
  const h = consistent ? { ...header, positions: keys.length, fingerprint: fingerprintKeys(body) } : header;
  return gzipSync(Buffer.concat([Buffer.from(`${JSON.stringify(h)}\n`), body]));
}
