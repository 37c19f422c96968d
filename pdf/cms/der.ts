/**
 * Small DER toolkit used where byte-exactness matters more than convenience: walking TLVs by offset
 * (to splice an unsigned attribute into a CMS without re-encoding anything else), encoding a few
 * primitives, sorting SET OF members, PEM to DER. Everything else goes through asn1js/pkijs.
 */
import { MoharError, type ErrorCode } from '../../common/errors.js';

/** One DER element located inside a buffer. `start`..`end` covers tag, length and content. */
export interface Tlv {
  /** The first identifier octet (class, constructed bit and low tag number). */
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

/** Reads the element at `offset` (definite lengths, single-octet tags only). */
export function readTlv(buf: Uint8Array, offset: number, code: ErrorCode = 'invalid_signature_data'): Tlv {
  const tag = buf[offset];
  if (tag === undefined) throw new MoharError(code, 'truncated DER: no element at offset ' + offset);
  if ((tag & 0x1f) === 0x1f) throw new MoharError(code, 'multi-octet DER tags are not supported');
  const first = buf[offset + 1];
  if (first === undefined) throw new MoharError(code, 'truncated DER length');
  let length: number;
  let contentStart: number;
  if (first < 0x80) {
    length = first;
    contentStart = offset + 2;
  } else if (first === 0x80) {
    throw new MoharError(code, 'indefinite-length (BER) encoding is not supported here');
  } else {
    const n = first & 0x7f;
    if (n > 4) throw new MoharError(code, 'DER length too large');
    length = 0;
    for (let i = 0; i < n; i++) {
      const b = buf[offset + 2 + i];
      if (b === undefined) throw new MoharError(code, 'truncated DER length');
      length = length * 256 + b;
    }
    contentStart = offset + 2 + n;
  }
  const end = contentStart + length;
  if (end > buf.length) throw new MoharError(code, 'truncated DER: element runs past the end of the data');
  return { tag, start: offset, contentStart, end };
}

/** The direct children of a constructed element. */
export function childrenOf(buf: Uint8Array, parent: Tlv, code: ErrorCode = 'invalid_signature_data'): Tlv[] {
  if ((parent.tag & 0x20) === 0) throw new MoharError(code, 'expected a constructed DER element');
  const out: Tlv[] = [];
  let at = parent.contentStart;
  while (at < parent.end) {
    const child = readTlv(buf, at, code);
    if (child.end > parent.end) throw new MoharError(code, 'DER element overruns its parent');
    out.push(child);
    at = child.end;
  }
  return out;
}

function encodeLength(length: number): Uint8Array {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** tag || length || concat(contents) */
export function tlv(tag: number, ...contents: readonly Uint8Array[]): Uint8Array {
  const content = concatBytes(...contents);
  return concatBytes(Uint8Array.of(tag), encodeLength(content.length), content);
}

export const seq = (...items: readonly Uint8Array[]): Uint8Array => tlv(0x30, ...items);
export const set = (...items: readonly Uint8Array[]): Uint8Array => tlv(0x31, ...sortDerSet(items));
export const octets = (value: Uint8Array): Uint8Array => tlv(0x04, value);

/** DER encoding of an OBJECT IDENTIFIER given in dotted form. */
export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split('.').map((s) => BigInt(s));
  if (arcs.length < 2) throw new RangeError('bad OID ' + dotted);
  const body: number[] = [];
  const push = (v: bigint): void => {
    const chunk: number[] = [Number(v & 0x7fn)];
    for (let x = v >> 7n; x > 0n; x >>= 7n) chunk.unshift(Number(x & 0x7fn) | 0x80);
    body.push(...chunk);
  };
  push(arcs[0]! * 40n + arcs[1]!);
  for (const arc of arcs.slice(2)) push(arc);
  return tlv(0x06, Uint8Array.from(body));
}

/** Minimal two's-complement content octets of a non-negative integer given as big-endian bytes. */
export function positiveIntegerContent(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const trimmed = bytes.subarray(i);
  return trimmed.length > 0 && (trimmed[0]! & 0x80) !== 0
    ? concatBytes(Uint8Array.of(0), trimmed)
    : Uint8Array.from(trimmed.length ? trimmed : [0]);
}

/** Orders SET OF members as DER requires (X.690 11.6: ascending, shorter padded with zeros). */
export function sortDerSet(items: readonly Uint8Array[]): Uint8Array[] {
  return [...items].sort((a, b) => {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const d = (a[i] ?? 0) - (b[i] ?? 0);
      if (d !== 0) return d;
    }
    return 0;
  });
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** A fresh, tightly sized copy (pkijs and asn1js want ArrayBuffers, and views may share them). */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(out).set(bytes);
  return out;
}

export function fromBufferSource(data: ArrayBuffer | ArrayBufferView): Uint8Array {
  return data instanceof ArrayBuffer
    ? new Uint8Array(data.slice(0))
    : new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
}

/** All PEM blocks with the given label (or any label) as DER. */
export function pemBlocks(text: string, label?: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
  for (const m of text.matchAll(re)) {
    if (label !== undefined && m[1] !== label) continue;
    out.push(new Uint8Array(Buffer.from(m[2]!.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64')));
  }
  return out;
}

/** DER certificate(s) from DER bytes or PEM text/bytes. */
export function certificatesFrom(input: Uint8Array | string): Uint8Array[] {
  if (typeof input === 'string') return pemBlocks(input, 'CERTIFICATE');
  if (looksLikePem(input)) return pemBlocks(Buffer.from(input).toString('latin1'), 'CERTIFICATE');
  return [input];
}

/** PEM text (possibly after openssl's "Bag Attributes" preamble) rather than DER (which starts with a SEQUENCE). */
export function looksLikePem(bytes: Uint8Array): boolean {
  return bytes[0] !== 0x30 && Buffer.from(bytes.subarray(0, 65536)).toString('latin1').includes('-----BEGIN ');
}
