/**
 * Text for PDF objects and appearance streams.
 *
 * - Values (/V, /T, /Reason, /Name...) are "text strings" (ISO 32000-1 7.9.2.2): PDFDocEncoding when
 *   every character has a code there, else UTF-16BE with a byte order mark. Hindi names, for
 *   instance, are stored exactly, in UTF-16BE.
 * - Appearance streams draw with the standard Helvetica font in WinAnsiEncoding (no font is embedded),
 *   so they can only show Latin-1 plus a few typographic characters. Other text is shown through
 *   `toWinAnsi`: Devanagari is transliterated to Latin letters (an approximate, Hunterian-like
 *   scheme: "राम कुमार" shows as "Ram Kumar"), accents outside Latin-1 are dropped ("Łódź" → "Lodz"
 *   where Unicode decomposes them), anything else becomes "?". The stored value stays exact.
 */
import { PdfString } from '../objects.js';

// PDFDocEncoding 0x80..0xA0 (ISO 32000-1 Annex D); 0x9F is undefined.
// prettier-ignore
const PDF_DOC_HIGH = [
  '\u2022', '\u2020', '\u2021', '\u2026', '\u2014', '\u2013', '\u0192', '\u2044',
  '\u2039', '\u203a', '\u2212', '\u2030', '\u201e', '\u201c', '\u201d', '\u2018',
  '\u2019', '\u201a', '\u2122', '\ufb01', '\ufb02', '\u0141', '\u0152', '\u0160',
  '\u0178', '\u017d', '\u0131', '\u0142', '\u0153', '\u0161', '\u017e', undefined,
  '\u20ac',
];
const PDF_DOC_REVERSE = new Map<string, number>();
PDF_DOC_HIGH.forEach((ch, i) => {
  if (ch) PDF_DOC_REVERSE.set(ch, 0x80 + i);
});

/** The PDFDocEncoding bytes of `s`, or undefined when a character has no code there. */
export function encodePdfDoc(s: string): Uint8Array | undefined {
  const out = new Uint8Array(s.length);
  let i = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    let b: number | undefined;
    if (c === 0x09 || c === 0x0a || c === 0x0d || (c >= 0x20 && c <= 0x7e)) b = c;
    else if (c >= 0xa1 && c <= 0xff && c !== 0xad) b = c;
    else b = PDF_DOC_REVERSE.get(ch);
    if (b === undefined) return undefined;
    out[i++] = b;
  }
  return out.subarray(0, i);
}

/** A text string object: PDFDocEncoding when possible, else UTF-16BE with BOM. */
export function textString(s: string): PdfString {
  const doc = encodePdfDoc(s);
  if (doc) return new PdfString(doc, false);
  const utf16 = Buffer.alloc(2 + s.length * 2);
  utf16[0] = 0xfe;
  utf16[1] = 0xff;
  for (let i = 0; i < s.length; i++) utf16.writeUInt16BE(s.charCodeAt(i), 2 + i * 2);
  return new PdfString(utf16, true);
}

/** A byte string (ASCII) object, e.g. for /ID or names of things. */
export function byteString(bytes: Uint8Array, hex = true): PdfString {
  return new PdfString(bytes, hex);
}

function pad(n: number, width = 2): string {
  return String(Math.trunc(Math.abs(n))).padStart(width, '0');
}

/** The wall-clock fields of `date` at a UTC offset in minutes (east positive). */
function shifted(date: Date, offsetMinutes: number): Date {
  return new Date(date.getTime() + offsetMinutes * 60_000);
}

/** PDF date (7.9.4): "D:YYYYMMDDHHmmSS+HH'mm'" at the given UTC offset (minutes, default 0). */
export function pdfDate(date: Date, offsetMinutes = 0): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('invalid date');
  const d = shifted(date, offsetMinutes);
  const sign = offsetMinutes < 0 ? '-' : '+';
  return (
    `D:${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}` +
    `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}` +
    `${sign}${pad(offsetMinutes / 60)}'${pad(offsetMinutes % 60)}'`
  );
}

const PDF_DATE = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz])|([+-])(\d{2})'?(\d{2})?'?)?$/;

/**
 * A PDF date (7.9.4, optional parts default as the standard says) as an ISO 8601 UTC string; null when it is not one.
 */
export function isoFromPdfDate(text: string | null): string | null {
  const m = text === null ? null : PDF_DATE.exec(text.trim());
  if (!m) return null;
  const [year, month = '01', day = '01', hour = '00', minute = '00', second = '00'] = m.slice(1, 7) as [
    string,
    ...(string | undefined)[],
  ];
  const offset = m[8] ? (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10] ?? 0)) : 0;
  const utc =
    Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) -
    offset * 60_000;
  return Number.isNaN(utc) ? null : new Date(utc).toISOString();
}

/** "2024-05-01 14:30:05 +05:30": a readable time for appearances. */
export function displayDate(date: Date, offsetMinutes = 0): string {
  const d = shifted(date, offsetMinutes);
  const sign = offsetMinutes < 0 ? '-' : '+';
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ` +
    `${sign}${pad(offsetMinutes / 60)}:${pad(offsetMinutes % 60)}`
  );
}

// ------------------------------------------------------------------ WinAnsi for appearance text

const WIN_ANSI_HIGH: Record<string, number> = {
  '\u20ac': 0x80,
  '\u201a': 0x82,
  '\u0192': 0x83,
  '\u201e': 0x84,
  '\u2026': 0x85,
  '\u2020': 0x86,
  '\u2021': 0x87,
  '\u02c6': 0x88,
  '\u2030': 0x89,
  '\u0160': 0x8a,
  '\u2039': 0x8b,
  '\u0152': 0x8c,
  '\u017d': 0x8e,
  '\u2018': 0x91,
  '\u2019': 0x92,
  '\u201c': 0x93,
  '\u201d': 0x94,
  '\u2022': 0x95,
  '\u2013': 0x96,
  '\u2014': 0x97,
  '\u02dc': 0x98,
  '\u2122': 0x99,
  '\u0161': 0x9a,
  '\u203a': 0x9b,
  '\u0153': 0x9c,
  '\u017e': 0x9e,
  '\u0178': 0x9f,
};

// Letters that Unicode does not decompose to a base letter plus accent.
const LATIN_FALLBACK: Record<string, string> = {
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  Ŋ: 'N',
  ŋ: 'n',
  Ŧ: 'T',
  ŧ: 't',
  '\u2010': '-',
  '\u2011': '-',
  '\u2212': '-',
  '\u00a0': ' ',
  '\u20b9': 'Rs.',
};

function winAnsiCode(ch: string): number | undefined {
  const c = ch.codePointAt(0)!;
  if ((c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff)) return c;
  return WIN_ANSI_HIGH[ch];
}

/**
 * Text as WinAnsi bytes for Helvetica: Devanagari transliterated, other accents stripped where
 * Unicode decomposition allows, the rest replaced by "?". Control characters become spaces.
 */
export function toWinAnsi(s: string): Uint8Array {
  const text = transliterateDevanagari(s);
  const out: number[] = [];
  for (const ch of text) {
    if (/[\t\n\r]/.test(ch)) {
      out.push(0x20);
      continue;
    }
    let code = winAnsiCode(ch);
    if (code === undefined && LATIN_FALLBACK[ch]) {
      for (const b of LATIN_FALLBACK[ch]) out.push(b.charCodeAt(0));
      continue;
    }
    if (code === undefined) {
      const base = ch.normalize('NFKD').replace(/\p{M}/gu, '');
      if (base.length > 0 && [...base].every((b) => winAnsiCode(b) !== undefined)) {
        for (const b of base) out.push(winAnsiCode(b)!);
        continue;
      }
      if (/\p{M}/u.test(ch)) continue; // a lone combining mark: nothing to show
      code = 0x3f; // '?'
    }
    out.push(code);
  }
  return Uint8Array.from(out);
}

/** True when `s` can be drawn with Helvetica/WinAnsi exactly as written. */
export function isWinAnsi(s: string): boolean {
  for (const ch of s) if (winAnsiCode(ch) === undefined && !/[\t\n\r]/.test(ch)) return false;
  return true;
}

// Helvetica advance widths (AFM, 1/1000 em) for WinAnsi 0x20..0x7E.
// prettier-ignore
const HELVETICA_ASCII = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space .. /
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 .. ?
  1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ .. O
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P .. _
  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` .. o
  556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p .. ~
];

/** Width of one WinAnsi byte in Helvetica (1/1000 em); non-ASCII glyphs use their base letter. */
export function helveticaWidth(code: number): number {
  if (code >= 0x20 && code <= 0x7e) return HELVETICA_ASCII[code - 0x20]!;
  if (code >= 0xc0 && code <= 0xff) {
    const base = String.fromCharCode(code).normalize('NFD').charCodeAt(0);
    if (base >= 0x20 && base <= 0x7e) return HELVETICA_ASCII[base - 0x20]!;
  }
  return code === 0x97 ? 1000 : 556;
}

/** Width in points of WinAnsi bytes set in Helvetica at `size`. */
export function helveticaTextWidth(bytes: Uint8Array, size: number): number {
  let w = 0;
  for (const b of bytes) w += helveticaWidth(b);
  return (w * size) / 1000;
}

// ------------------------------------------------------------------ Devanagari → Latin

const DEV_VOWELS: Record<string, string> = {
  अ: 'a',
  आ: 'a',
  इ: 'i',
  ई: 'i',
  उ: 'u',
  ऊ: 'u',
  ऋ: 'ri',
  ए: 'e',
  ऐ: 'ai',
  ओ: 'o',
  औ: 'au',
  ऑ: 'o',
  ऍ: 'e',
};
const DEV_CONSONANTS: Record<string, string> = {
  क: 'k',
  ख: 'kh',
  ग: 'g',
  घ: 'gh',
  ङ: 'n',
  च: 'ch',
  छ: 'chh',
  ज: 'j',
  झ: 'jh',
  ञ: 'n',
  ट: 't',
  ठ: 'th',
  ड: 'd',
  ढ: 'dh',
  ण: 'n',
  त: 't',
  थ: 'th',
  द: 'd',
  ध: 'dh',
  न: 'n',
  प: 'p',
  फ: 'ph',
  ब: 'b',
  भ: 'bh',
  म: 'm',
  य: 'y',
  र: 'r',
  ल: 'l',
  ळ: 'l',
  व: 'v',
  श: 'sh',
  ष: 'sh',
  स: 's',
  ह: 'h',
};
// Consonant + nukta (NFC keeps U+0958..U+095F decomposed, so they arrive as two code points).
const DEV_NUKTA: Record<string, string> = { क: 'q', ख: 'kh', ग: 'gh', ज: 'z', ड: 'r', ढ: 'rh', फ: 'f', य: 'y' };
const DEV_MATRAS: Record<string, string> = {
  'ा': 'a',
  'ि': 'i',
  'ी': 'i',
  'ु': 'u',
  'ू': 'u',
  'ृ': 'ri',
  'े': 'e',
  'ै': 'ai',
  'ो': 'o',
  'ौ': 'au',
  'ॉ': 'o',
  'ॅ': 'e',
};
const DEV_SIGNS: Record<string, string> = { 'ं': 'n', 'ँ': 'n', 'ः': 'h', '।': '.', '॥': '.', ॐ: 'om' };
const VIRAMA = '्';
const NUKTA = '़';

function isDevanagari(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  return c >= 0x0900 && c <= 0x097f;
}

/**
 * Approximate Devanagari → Latin transliteration for display only: consonants carry an inherent
 * "a" that a vowel sign replaces and a virama removes; a word-final inherent "a" is dropped
 * (schwa deletion) in words of more than one letter; each word starts with a capital.
 */
export function transliterateDevanagari(s: string): string {
  if (![...s].some(isDevanagari)) return s;
  const chars = [...s.normalize('NFC')];
  let out = '';
  let word = '';
  let letters = 0;
  let pendingA = false; // the last consonant still carries its inherent "a"
  const flushA = (): void => {
    if (pendingA) word += 'a';
    pendingA = false;
  };
  const endWord = (): void => {
    if (pendingA && letters <= 1) word += 'a'; // a one-letter word keeps its vowel
    pendingA = false;
    if (word) out += word.charAt(0).toUpperCase() + word.slice(1);
    word = '';
    letters = 0;
  };
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const code = ch.codePointAt(0)!;
    if (!isDevanagari(ch)) {
      endWord();
      out += ch;
      continue;
    }
    if (code >= 0x0966 && code <= 0x096f) {
      flushA();
      word += String(code - 0x0966);
      continue;
    }
    if (DEV_CONSONANTS[ch] !== undefined) {
      flushA();
      let latin = DEV_CONSONANTS[ch]!;
      if (chars[i + 1] === NUKTA) {
        latin = DEV_NUKTA[ch] ?? latin;
        i++;
      }
      word += latin;
      letters++;
      pendingA = true;
      continue;
    }
    if (DEV_MATRAS[ch] !== undefined) {
      pendingA = false;
      word += DEV_MATRAS[ch];
      continue;
    }
    if (ch === VIRAMA) {
      pendingA = false;
      continue;
    }
    if (DEV_VOWELS[ch] !== undefined) {
      flushA();
      word += DEV_VOWELS[ch];
      letters++;
      continue;
    }
    if (DEV_SIGNS[ch] !== undefined) {
      flushA();
      word += DEV_SIGNS[ch];
      continue;
    }
    // other signs (nukta alone, accents): nothing to show
  }
  endWord();
  return out;
}
