/**
 * Output limits for decoders. A decoder is told the most bytes it may produce and stops with
 * pdf_too_complex at that point, so a "zip bomb" never gets to fill memory.
 */
import { tooComplex, type PdfLimits } from './limits.js';

/** The most bytes a decoder may produce; beyond it: pdf_too_complex, with `what` naming the limit. */
export interface OutputLimit {
  readonly maxBytes: number;
  readonly what: string;
}

/** A byte buffer that grows by doubling and refuses to pass the output limit. */
export class LimitedBuffer {
  private buf = new Uint8Array(1024);
  private len = 0;
  constructor(private readonly limit: OutputLimit) {}
  push(bytes: Uint8Array, count: number): void {
    const need = this.len + count;
    if (need > this.limit.maxBytes) throw tooComplex(this.limit.what);
    if (need > this.buf.length) {
      const bigger = new Uint8Array(Math.min(Math.max(need, this.buf.length * 2), this.limit.maxBytes));
      bigger.set(this.buf.subarray(0, this.len));
      this.buf = bigger;
    }
    this.buf.set(bytes.subarray(0, count), this.len);
    this.len = need;
  }
  result(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

/** The per-document decoding budget: each stream gets min(per-stream limit, what is left). */
export class DecodeBudget {
  private used = 0;
  constructor(private readonly limits: PdfLimits) {}

  /** The limit for the next stream to decode. */
  next(): OutputLimit {
    const { maxInflateBytes, maxTotalDecodedBytes } = this.limits;
    const left = maxTotalDecodedBytes - this.used;
    if (left < maxInflateBytes) {
      return {
        maxBytes: Math.max(0, left),
        what: `decoded streams exceed the total budget of ${maxTotalDecodedBytes} bytes`,
      };
    }
    return { maxBytes: maxInflateBytes, what: `a stream decodes to more than ${maxInflateBytes} bytes` };
  }

  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limits.maxTotalDecodedBytes) {
      throw tooComplex(`decoded streams exceed the total budget of ${this.limits.maxTotalDecodedBytes} bytes`);
    }
  }
}
