import { X509Certificate, createHash, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * The Authenticode signatures of a PE/COFF file (a kernel's EFI stub, shim, GRUB), read
 * without an outside tool: each PKCS#7 SignedData in its certificate table, the signer's
 * certificate, whether the signature over the signed attributes verifies with that
 * certificate's key, and whether the image digest it signs is the file's (computed as UEFI
 * firmware computes it). Whether the signer is one the PC's firmware trusts (Microsoft's UEFI
 * CA, then shim's Debian CA) is for the firmware to say: the names are reported.
 */
export interface PeSignature {
  /** A signature verifies and signs this very file. */
  signed: boolean;
  /** The certificate that signed it: its subject's and its issuer's common names. */
  signer?: string;
  issuer?: string;
  /** Every signature found, in order (shim carries two: Microsoft's 2011 and 2023 CAs). */
  signatures: { signer: string; issuer: string; verified: boolean; matches: boolean }[];
  /** Why it is not signed: not a PE file, no signature, changed since it was signed. */
  problem?: string;
}

export async function peSignature(file: string): Promise<PeSignature> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    return { signed: false, signatures: [], problem: `cannot be read: ${(error as Error).message}` };
  }
  return signatureOf(bytes);
}

interface Pe {
  checksumAt: number;
  certEntryAt: number;
  sizeOfHeaders: number;
  sections: { at: number; size: number }[];
  cert: { at: number; size: number };
}

function parsePe(b: Buffer): Pe | string {
  if (b.length < 0x40 || b.toString('latin1', 0, 2) !== 'MZ') return 'not a PE/COFF file';
  const pe = b.readUInt32LE(0x3c);
  if (pe + 24 > b.length || b.toString('latin1', pe, pe + 4) !== 'PE\0\0') return 'not a PE/COFF file';
  const sectionCount = b.readUInt16LE(pe + 6);
  const optionalSize = b.readUInt16LE(pe + 20);
  const opt = pe + 24;
  if (opt + optionalSize > b.length) return 'its headers are cut short';
  const magic = b.readUInt16LE(opt);
  if (magic !== 0x10b && magic !== 0x20b) return 'an unknown optional header';
  const directories = opt + (magic === 0x20b ? 112 : 96);
  const directoryCount = b.readUInt32LE(opt + (magic === 0x20b ? 108 : 92));
  const certEntryAt = directories + 4 * 8;
  const cert =
    directoryCount > 4 && certEntryAt + 8 <= opt + optionalSize
      ? { at: b.readUInt32LE(certEntryAt), size: b.readUInt32LE(certEntryAt + 4) }
      : { at: 0, size: 0 };
  const sections: Pe['sections'] = [];
  const table = opt + optionalSize;
  for (let i = 0; i < sectionCount; i++) {
    const entry = table + i * 40;
    if (entry + 40 > b.length) return 'its section table is cut short';
    const size = b.readUInt32LE(entry + 16);
    if (size > 0) sections.push({ at: b.readUInt32LE(entry + 20), size });
  }
  return { checksumAt: opt + 64, certEntryAt, sizeOfHeaders: b.readUInt32LE(opt + 60), sections, cert };
}

/** The image digest as UEFI firmware computes it (EDK2's HashPeImage): headers less the checksum and the certificate entry, sections by file offset, then what follows them less the certificate table. */
function imageDigest(b: Buffer, pe: Pe, algorithm: string): Buffer {
  const hash = createHash(algorithm);
  hash.update(b.subarray(0, pe.checksumAt));
  hash.update(b.subarray(pe.checksumAt + 4, pe.certEntryAt));
  hash.update(b.subarray(pe.certEntryAt + 8, pe.sizeOfHeaders));
  let hashed = pe.sizeOfHeaders;
  for (const section of [...pe.sections].sort((x, y) => x.at - y.at)) {
    hash.update(b.subarray(section.at, section.at + section.size));
    hashed += section.size;
  }
  if (b.length > hashed) {
    const extra = b.length - hashed - (pe.cert.size > 0 ? pe.cert.size : 0);
    if (extra > 0) hash.update(b.subarray(hashed, hashed + extra));
  }
  return hash.digest();
}

/** A DER element: its tag, where its header starts, where its content starts and ends. */
interface Der {
  tag: number;
  start: number;
  content: number;
  end: number;
}

function der(b: Buffer, at: number, limit = b.length): Der {
  if (at + 2 > limit) throw new Error('DER cut short');
  const tag = b[at]!;
  let length = b[at + 1]!;
  let content = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER length not supported');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + b[content + i]!;
    content += count;
  }
  if (content + length > limit) throw new Error('DER cut short');
  return { tag, start: at, content, end: content + length };
}

function children(b: Buffer, node: Der): Der[] {
  const found: Der[] = [];
  for (let at = node.content; at < node.end; ) {
    const child = der(b, at, node.end);
    found.push(child);
    at = child.end;
  }
  return found;
}

function oid(b: Buffer, node: Der): string {
  const bytes = b.subarray(node.content, node.end);
  const parts = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

const digestNames: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  '1.3.14.3.2.26': 'sha1',
};
const messageDigestAttribute = '1.2.840.113549.1.9.4';

function commonName(distinguished: string): string {
  return /(?:^|\n)CN=([^\n]*)/.exec(distinguished)?.[1] ?? distinguished.replace(/\n/g, ', ');
}

/** One PKCS#7 SignedData (Authenticode) checked against the file. */
function checkSignedData(b: Buffer, p7: Buffer, pe: Pe): PeSignature['signatures'][number] {
  const contentInfo = der(p7, 0);
  const [, explicit] = children(p7, contentInfo);
  const signedData = children(p7, children(p7, explicit!)[0]!);
  // version, digestAlgorithms, contentInfo (SpcIndirectDataContent), [0] certificates, [1] crls, signerInfos
  const inner = signedData[2]!;
  const spc = children(p7, children(p7, inner)[1]!)[0]!;
  const [, digestInfo] = children(p7, spc);
  const [algorithm, digest] = children(p7, digestInfo!);
  const digestName = digestNames[oid(p7, children(p7, algorithm!)[0]!)];
  const signed = p7.subarray(digest!.content, digest!.end);
  const certificates = signedData
    .filter((node) => node.tag === 0xa0)
    .flatMap((node) => children(p7, node))
    .map((node) => new X509Certificate(p7.subarray(node.start, node.end)));
  const signerInfo = children(p7, signedData[signedData.length - 1]!)[0]!;
  const info = children(p7, signerInfo);
  // version, issuerAndSerialNumber, digestAlgorithm, [0] signed attributes, digestEncryptionAlgorithm, encryptedDigest, [1] ...
  const serialNode = children(p7, info[1]!)[1]!;
  const serial = p7.subarray(serialNode.content, serialNode.end).toString('hex').replace(/^0+/, '').toUpperCase();
  const certificate = certificates.find((c) => c.serialNumber.replace(/^0+/, '').toUpperCase() === serial) ?? certificates[0];
  const matches = digestName !== undefined && imageDigest(b, pe, digestName).equals(signed);
  // The signature covers the signed attributes (their [0] tag read as a SET), one of which is the digest of the SpcIndirectDataContent's content.
  let verified = false;
  const attributes = info.find((node) => node.tag === 0xa0);
  const encrypted = info.find((node) => node.tag === 0x04);
  const signerDigest = digestNames[oid(p7, children(p7, info[2]!)[0]!)];
  if (certificate && attributes && signerDigest) {
    const spcContent = p7.subarray(spc.content, spc.end);
    const wanted = createHash(signerDigest).update(spcContent).digest();
    const attributeDigest = children(p7, attributes)
      .map((attribute) => children(p7, attribute))
      .find(([type]) => oid(p7, type!) === messageDigestAttribute);
    const value = attributeDigest && children(p7, attributeDigest[1]!)[0];
    const digestOk = value !== undefined && p7.subarray(value.content, value.end).equals(wanted);
    const set = Buffer.from(p7.subarray(attributes.start, attributes.end));
    set[0] = 0x31;
    verified =
      digestOk &&
      encrypted !== undefined &&
      verify(signerDigest, set, certificate.publicKey, p7.subarray(encrypted.content, encrypted.end));
  }
  return {
    signer: certificate ? commonName(certificate.subject) : '',
    issuer: certificate ? commonName(certificate.issuer) : '',
    verified,
    matches,
  };
}

export function signatureOf(b: Buffer): PeSignature {
  const pe = parsePe(b);
  if (typeof pe === 'string') return { signed: false, signatures: [], problem: pe };
  if (pe.cert.size === 0 || pe.cert.at === 0) return { signed: false, signatures: [], problem: 'no signature' };
  if (pe.cert.at + pe.cert.size > b.length) return { signed: false, signatures: [], problem: 'its certificate table is cut short' };
  const signatures: PeSignature['signatures'] = [];
  for (let at = pe.cert.at; at + 8 <= pe.cert.at + pe.cert.size; ) {
    const length = b.readUInt32LE(at);
    const type = b.readUInt16LE(at + 6);
    if (length < 8) break;
    if (type === 0x0002) {
      try {
        signatures.push(checkSignedData(b, b.subarray(at + 8, at + length), pe));
      } catch {
        signatures.push({ signer: '', issuer: '', verified: false, matches: false });
      }
    }
    at += (length + 7) & ~7;
  }
  const good = signatures.find((s) => s.verified && s.matches);
  if (good) return { signed: true, signer: good.signer, issuer: good.issuer, signatures };
  const problem =
    signatures.length === 0
      ? 'no signature'
      : signatures.some((s) => s.verified)
        ? 'changed since it was signed (its digest differs)'
        : 'a signature that does not verify';
  return { signed: false, signatures, problem, ...(signatures[0] ? { signer: signatures[0].signer, issuer: signatures[0].issuer } : {}) };
}
