/** LZWDecode (ISO 32000-1 7.4.4): variable-width codes (9..12 bits), MSB first, optional early change. */
import { LimitedBuffer, type OutputLimit } from './output-limit.js';

export function lzwDecode(data: Uint8Array, earlyChange: boolean, limit: OutputLimit): Uint8Array {
  const out = new LimitedBuffer(limit);
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) {
    suffix[i] = i;
    lengths[i] = 1;
  }
  let next = 258;
  let width = 9;
  let prev = -1;
  let bitBuf = 0;
  let bits = 0;
  const entry = new Uint8Array(4096);
  const emit = (code: number): number => {
    const len = lengths[code]!;
    for (let i = len - 1, c = code; i >= 0; i--, c = prefix[c]!) entry[i] = suffix[c]!;
    out.push(entry, len);
    return entry[0]!;
  };
  for (const byte of data) {
    bitBuf = (bitBuf << 8) | byte;
    bits += 8;
    while (bits >= width) {
      const code = (bitBuf >>> (bits - width)) & ((1 << width) - 1);
      bits -= width;
      if (code === 256) {
        next = 258;
        width = 9;
        prev = -1;
        continue;
      }
      if (code === 257) return out.result();
      let first: number;
      if (code < next) first = emit(code);
      else if (code === next && prev >= 0) {
        // KwKwK case: the code being defined is prev + first byte of prev
        const len = lengths[prev]!;
        for (let i = len - 1, c = prev; i >= 0; i--, c = prefix[c]!) entry[i] = suffix[c]!;
        entry[len] = entry[0]!;
        out.push(entry, len + 1);
        first = entry[0]!;
      } else return out.result(); // corrupt: stop like viewers do
      if (prev >= 0 && next < 4096) {
        prefix[next] = prev;
        suffix[next] = first;
        lengths[next] = lengths[prev]! + 1;
        next++;
      }
      prev = code;
      const threshold = next + (earlyChange ? 1 : 0);
      width = threshold >= 2048 ? 12 : threshold >= 1024 ? 11 : threshold >= 512 ? 10 : 9;
    }
  }
  return out.result();
}
