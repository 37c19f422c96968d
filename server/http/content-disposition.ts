/**
 * `Content-Disposition: attachment` for a file name in any script (issue 16.7), the one place that writes it.
 *
 * Header values are Latin-1 at most, so a Hindi name written as is makes Node refuse the header (a 500).
 * RFC 6266 gives both: `filename="…"` in plain ASCII for old clients, and the exact name as UTF-8 in
 * `filename*=UTF-8''…` (RFC 8187 percent-encoding), which every current browser prefers.
 */

/** RFC 8187 attr-char: ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~". */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The ASCII stand-in: accents dropped (é → e), other letters and quotes as "_"; "document" when nothing is left. */
export function asciiFilename(filename: string): string {
  const ascii = filename
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]+/g, '_')
    .replace(/["\\]/g, '_');
  const dot = ascii.lastIndexOf('.');
  const stem = dot > 0 ? ascii.slice(0, dot) : ascii;
  const extension = dot > 0 ? ascii.slice(dot) : '';
  return /[A-Za-z0-9]/.test(stem) ? ascii : `document${extension}`;
}

/** The header value: `attachment; filename="ascii"; filename*=UTF-8''exact`. */
export function attachmentDisposition(filename: string): string {
  // eslint-disable-next-line no-control-regex -- control characters never belong in a header
  const clean = filename.replace(/[\u0000-\u001f\u007f]/g, '');
  return `attachment; filename="${asciiFilename(clean)}"; filename*=UTF-8''${encodeExtValue(clean)}`;
}
