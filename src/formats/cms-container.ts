// CMS (RFC 5652) containers around a file: S/MIME opaque-signed mail (smime.p7m) and CAdES
// `.pdf.p7m` files carry the signed content inside a SignedData. This unwraps it, layer by layer
// (a file signed twice is a SignedData inside a SignedData), and says whether every signature
// checked out against the signer certificate the container carries. "Verified" is integrity
// only: nobody's trust store is consulted, so it never means "signed by someone we trust".
// Pure and synchronous: bytes in, content or a reason out. pkijs (asn1js underneath) reads the
// structure; node:crypto checks the signatures (pkijs's own verify() is async, WebCrypto).
import { createHash, constants, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Asn1js from 'asn1js';
import type * as Pkijs from 'pkijs';

// pkijs and asn1js (about 0.3 s of CPU to load) are loaded by the first file that looks like a
// CMS container, not by every start (docs/operations.md, "The embedded default, measured").
// Required, so this stays synchronous for its callers: both are CommonJS packages, the same
// modules an `import` of them loads.
const require = createRequire(import.meta.url);
let libraries: { asn1js: typeof Asn1js; pkijs: typeof Pkijs } | undefined;
const cmsLibraries = () => (libraries ??= { asn1js: require('asn1js') as typeof Asn1js, pkijs: require('pkijs') as typeof Pkijs });

export type CmsUnwrap = { content: Uint8Array; verified: boolean } | { error: string };

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  envelopedData: '1.2.840.113549.1.7.3',
  digestedData: '1.2.840.113549.1.7.5',
  encryptedData: '1.2.840.113549.1.7.6',
  authEnvelopedData: '1.2.840.113549.1.9.16.1.23',
  compressedData: '1.2.840.113549.1.9.16.1.9',
} as const;

const UNSUPPORTED: Record<string, string> = {
  [OID.envelopedData]: "it is encrypted (CMS EnvelopedData) and cannot be opened without the recipient's key",
  [OID.authEnvelopedData]: "it is encrypted (CMS AuthEnvelopedData) and cannot be opened without the recipient's key",
  [OID.encryptedData]: 'it is encrypted (CMS EncryptedData)',
  [OID.compressedData]: 'it is compressed CMS data, which is not supported',
  [OID.digestedData]: 'it is CMS DigestedData, which is not supported',
};

/** Nested signatures deeper than this are refused (a real file has one or two). */
const MAX_LAYERS = 8;

/** An OBJECT IDENTIFIER in DER (tag, length, the arcs in base 128), without loading asn1js. */
function derOid(oid: string): Buffer {
  const [a, b, ...rest] = oid.split('.').map(Number);
  const body = [a * 40 + b, ...rest].flatMap((arc) => {
    const bytes = [arc & 0x7f];
    for (let n = arc >>> 7; n > 0; n >>>= 7) bytes.unshift((n & 0x7f) | 0x80);
    return bytes;
  });
  return Buffer.from([0x06, body.length, ...body]);
}

/** The DER OID encodings that identify a ContentInfo near the start of the bytes. */
const CMS_TYPE_PREFIXES = [OID.signedData, OID.envelopedData, OID.authEnvelopedData, OID.encryptedData, OID.compressedData, OID.digestedData].map(derOid);

/**
 * Unwraps a CMS SignedData (DER, BER, PEM or bare Base64). Undefined when the bytes are no CMS
 * container at all; `{ error }` when they are one but hold nothing usable (encrypted, a detached
 * signature, damaged).
 */
export function unwrapSignedData(bytes: Uint8Array): CmsUnwrap | undefined {
  const der = toBinary(bytes);
  if (!der || !looksLikeContentInfo(der)) return undefined;
  let current = der;
  let verified = true;
  for (let layer = 0; layer < MAX_LAYERS; layer++) {
    const one = unwrapOne(current);
    if ('error' in one) return layer === 0 ? one : { error: `the signed content inside is damaged: ${one.error}` };
    verified &&= one.verified;
    const inner = toBinary(one.content);
    // the signed content is itself signed again (CAdES counter-signing by wrapping)
    if (inner && looksLikeContentInfo(inner) && contentType(inner) === OID.signedData) {
      current = inner;
      continue;
    }
    return { content: one.content, verified };
  }
  return { error: `it is signed more than ${MAX_LAYERS} times over` };
}

/** Whether the bytes start like a CMS ContentInfo: a SEQUENCE whose first element is a known CMS type. */
function looksLikeContentInfo(der: Uint8Array): boolean {
  if (der[0] !== 0x30) return false;
  const head = Buffer.from(der.buffer, der.byteOffset, Math.min(der.length, 24));
  return CMS_TYPE_PREFIXES.some((oid) => head.indexOf(oid) >= 2 && head.indexOf(oid) <= 6);
}

function contentType(der: Uint8Array): string | undefined {
  const { asn1js, pkijs } = cmsLibraries();
  try {
    const asn = asn1js.fromBER(der);
    if (asn.offset === -1) return undefined;
    return new pkijs.ContentInfo({ schema: asn.result }).contentType;
  } catch {
    return undefined;
  }
}

function unwrapOne(der: Uint8Array): CmsUnwrap {
  const { asn1js, pkijs } = cmsLibraries();
  let info: Pkijs.ContentInfo;
  try {
    const asn = asn1js.fromBER(der);
    if (asn.offset === -1) return { error: 'it is damaged' }; // the ASN.1 library's words stay out of the reason
    info = new pkijs.ContentInfo({ schema: asn.result });
  } catch {
    return { error: 'it is damaged' };
  }
  if (info.contentType !== OID.signedData)
    return { error: UNSUPPORTED[info.contentType] ?? `it is CMS content of type ${info.contentType}, which is not supported` };
  let signed: Pkijs.SignedData;
  try {
    signed = new pkijs.SignedData({ schema: info.content });
  } catch {
    return { error: 'its signed data is damaged' };
  }
  const eContent = signed.encapContentInfo.eContent;
  if (!eContent) return { error: 'it is a detached signature: the signed content is not inside it' };
  const content = octets(eContent);
  return { content, verified: verifyAll(signed, content) };
}

/** An OCTET STRING's bytes; BER (streamed) encoders split it into a constructed string of chunks. */
function octets(value: Asn1js.OctetString): Uint8Array {
  if (!value.idBlock.isConstructed) return new Uint8Array(value.valueBlock.valueHexView);
  const chunks = (value.valueBlock.value as Asn1js.OctetString[]).map(octets);
  return Buffer.concat(chunks);
}

const DIGESTS: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const RSA_PSS = '1.2.840.113549.1.1.10';
const ED25519 = '1.3.101.112';

/**
 * Every signer's signature checks out against a certificate the container carries (no trust
 * chain: the carried certificates are tried in turn, the one that verifies is the signer's).
 */
function verifyAll(signed: Pkijs.SignedData, content: Uint8Array): boolean {
  const { pkijs } = cmsLibraries();
  const keys = (signed.certificates ?? []).flatMap((c) => {
    if (!(c instanceof pkijs.Certificate)) return [];
    try {
      return [new X509Certificate(Buffer.from(c.toSchema().toBER(false))).publicKey];
    } catch {
      return [];
    }
  });
  if (!signed.signerInfos.length || !keys.length) return false;
  return signed.signerInfos.every((signer) => {
    try {
      return verifySigner(signer, content, keys);
    } catch {
      return false;
    }
  });
}

function verifySigner(signer: Pkijs.SignerInfo, content: Uint8Array, keys: KeyObject[]): boolean {
  const { asn1js, pkijs } = cmsLibraries();
  const digest = DIGESTS[signer.digestAlgorithm.algorithmId];
  if (!digest) return false;
  let data: Uint8Array = content;
  if (signer.signedAttrs) {
    // the signature covers the signed attributes (DER, as a SET), which carry the content's digest
    const md = signer.signedAttrs.attributes.find((a) => a.type === MESSAGE_DIGEST)?.values[0];
    if (!(md instanceof asn1js.OctetString)) return false;
    if (!Buffer.from(md.valueBlock.valueHexView).equals(createHash(digest).update(content).digest())) return false;
    data = new Uint8Array(signer.signedAttrs.encodedValue);
  }
  const signature = new Uint8Array(signer.signature.valueBlock.valueHexView);
  const algorithm = signer.signatureAlgorithm.algorithmId;
  return keys.some((key) => {
    try {
      if (algorithm === ED25519) return verify(null, data, key, signature);
      if (algorithm === RSA_PSS) {
        const params = new pkijs.RSASSAPSSParams({ schema: signer.signatureAlgorithm.algorithmParams });
        const hash = DIGESTS[params.hashAlgorithm.algorithmId] ?? 'sha1';
        return verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: params.saltLength }, signature);
      }
      // RSA PKCS #1 v1.5 and ECDSA (DER signature) alike: the signer's digest names the hash
      return verify(digest, data, key, signature);
    } catch {
      return false;
    }
  });
}

/** DER/BER as is; PEM (any BEGIN label) or bare Base64 decoded; undefined when neither. */
function toBinary(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes[0] === 0x30) return bytes;
  // text: look at a bounded prefix before decoding everything
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 256)).toString('latin1');
  const pem = /^\s*-----BEGIN [A-Z0-9 ]+-----/.test(head);
  if (!pem && !/^[\sA-Za-z0-9+/=]+$/.test(head)) return undefined;
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  if (pem) text = text.replace(/-----(BEGIN|END) [A-Z0-9 ]+-----/g, '').replace(/^[A-Za-z-]+:.*$/gm, '');
  const compact = text.replace(/\s+/g, '');
  if (!compact || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return undefined;
  const decoded = Buffer.from(compact, 'base64');
  return decoded[0] === 0x30 ? new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.length) : undefined;
}
