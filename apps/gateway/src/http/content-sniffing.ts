/**
 * The content type GitLab's Workhorse sends with an upload it serves (`workhorse/internal/headers/content_headers.go`
 * `SafeContentHeaders`, asked for by Rails' `workhorse_set_content_type!`): detected from the first bytes with Go's
 * `http.DetectContentType` (WHATWG MIME sniffing, `net/http/sniff.go`), SVG recognised first
 * (`workhorse/internal/utils/svg`), and every text type (HTML, XML, JavaScript) served as `text/plain; charset=utf-8`.
 * The disposition follows: kept when Rails said `attachment`; SVG always `attachment`; images, text, video and PDF
 * `inline`; anything else `attachment`.
 */

/** Bytes Workhorse reads to decide (`headers.MaxDetectSize`); Go's sniffing looks at the first 512 of them. */
export const MAX_DETECT_SIZE = 4096;
const SNIFF_LEN = 512;

const isWS = (b: number) => b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
const isTagTerminating = (b: number) => b === 0x20 || b === 0x3e;
const bytes = (s: string) => Buffer.from(s, 'latin1');

type Sig = (data: Buffer, firstNonWS: number) => string | undefined;

function html(tag: string): Sig {
  const pat = bytes(tag);
  return (data, firstNonWS) => {
    const d = data.subarray(firstNonWS);
    if (d.length < pat.length + 1) return undefined;
    for (let i = 0; i < pat.length; i++) {
      let b = d[i]!;
      if (pat[i]! >= 0x41 && pat[i]! <= 0x5a) b &= 0xdf; // ASCII letters compare case-insensitively
      if (b !== pat[i]) return undefined;
    }
    return isTagTerminating(d[pat.length]!) ? 'text/html; charset=utf-8' : undefined;
  };
}

function masked(mask: string, pattern: string, type: string, skipWS = false): Sig {
  const m = bytes(mask);
  const p = bytes(pattern);
  return (data, firstNonWS) => {
    const d = skipWS ? data.subarray(firstNonWS) : data;
    if (d.length < p.length) return undefined;
    for (let i = 0; i < p.length; i++) if ((d[i]! & m[i]!) !== p[i]) return undefined;
    return type;
  };
}

function exact(prefix: string, type: string): Sig {
  const p = bytes(prefix);
  return (data) => (data.length >= p.length && data.subarray(0, p.length).equals(p) ? type : undefined);
}

const mp4: Sig = (data) => {
  if (data.length < 12) return undefined;
  const boxSize = data.readUInt32BE(0);
  if (data.length < boxSize || boxSize % 4 !== 0) return undefined;
  if (data.toString('latin1', 4, 8) !== 'ftyp') return undefined;
  for (let st = 8; st < boxSize; st += 4) {
    if (st === 12) continue; // the minor version
    if (data.toString('latin1', st, st + 3) === 'mp4') return 'video/mp4';
  }
  return undefined;
};

const text: Sig = (data, firstNonWS) => {
  for (let i = firstNonWS; i < data.length; i++) {
    const b = data[i]!;
    if (b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)) return undefined;
  }
  return 'text/plain; charset=utf-8';
};

const SIGNATURES: readonly Sig[] = [
  ...['<!DOCTYPE HTML', '<HTML', '<HEAD', '<SCRIPT', '<IFRAME', '<H1', '<DIV', '<FONT', '<TABLE', '<A', '<STYLE', '<TITLE', '<B', '<BODY', '<BR', '<P', '<!--'].map(html),
  masked('\xff\xff\xff\xff\xff', '<?xml', 'text/xml; charset=utf-8', true),
  exact('%PDF-', 'application/pdf'),
  exact('%!PS-Adobe-', 'application/postscript'),
  masked('\xff\xff\x00\x00', '\xfe\xff\x00\x00', 'text/plain; charset=utf-16be'),
  masked('\xff\xff\x00\x00', '\xff\xfe\x00\x00', 'text/plain; charset=utf-16le'),
  masked('\xff\xff\xff\x00', '\xef\xbb\xbf\x00', 'text/plain; charset=utf-8'),
  exact('\x00\x00\x01\x00', 'image/x-icon'),
  exact('\x00\x00\x02\x00', 'image/x-icon'),
  exact('BM', 'image/bmp'),
  exact('GIF87a', 'image/gif'),
  exact('GIF89a', 'image/gif'),
  masked('\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff', 'RIFF\x00\x00\x00\x00WEBPVP', 'image/webp'),
  exact('\x89PNG\x0d\x0a\x1a\x0a', 'image/png'),
  exact('\xff\xd8\xff', 'image/jpeg'),
  masked('\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff', 'FORM\x00\x00\x00\x00AIFF', 'audio/aiff'),
  masked('\xff\xff\xff', 'ID3', 'audio/mpeg'),
  masked('\xff\xff\xff\xff\xff', 'OggS\x00', 'application/ogg'),
  masked('\xff\xff\xff\xff\xff\xff\xff\xff', 'MThd\x00\x00\x00\x06', 'audio/midi'),
  masked('\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff', 'RIFF\x00\x00\x00\x00AVI ', 'video/avi'),
  masked('\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff', 'RIFF\x00\x00\x00\x00WAVE', 'audio/wave'),
  mp4,
  exact('\x1a\x45\xdf\xa3', 'video/webm'),
  masked(`${'\x00'.repeat(34)}\xff\xff`, `${'\x00'.repeat(34)}LP`, 'application/vnd.ms-fontobject'),
  exact('\x00\x01\x00\x00', 'font/ttf'),
  exact('OTTO', 'font/otf'),
  exact('ttcf', 'font/collection'),
  exact('wOFF', 'font/woff'),
  exact('wOF2', 'font/woff2'),
  exact('\x1f\x8b\x08', 'application/x-gzip'),
  exact('PK\x03\x04', 'application/zip'),
  exact('Rar!\x1a\x07\x00', 'application/x-rar-compressed'),
  exact('Rar!\x1a\x07\x01\x00', 'application/x-rar-compressed'),
  exact('\x00\x61\x73\x6d', 'application/wasm'),
  text,
];

/** Go's `http.DetectContentType`. */
export function detectContentType(head: Buffer): string {
  const data = head.length > SNIFF_LEN ? head.subarray(0, SNIFF_LEN) : head;
  let firstNonWS = 0;
  while (firstNonWS < data.length && isWS(data[firstNonWS]!)) firstNonWS++;
  for (const sig of SIGNATURES) {
    const type = sig(data, firstNonWS);
    if (type) return type;
  }
  return 'application/octet-stream';
}

/** Workhorse's `svg.Is`: not binary in its first 24 bytes, and (HTML comments removed) an `<svg ...>` root. */
export function isSvg(head: Buffer): boolean {
  if (head.length >= 24) {
    for (let i = 0; i < 24; i++) if (head[i]! <= 8) return false;
  }
  const textual = head.toString('latin1').replace(/<!--[\s\S]*?-->/gi, '');
  return /^\s*(?:<\?xml[^>]*>\s*)?(?:<!doctype svg[^>]*>\s*)?<svg[^>]*>/i.test(textual);
}

/** Workhorse's `safeContentType`. */
export function safeContentType(head: Buffer): string {
  if (isSvg(head)) return 'image/svg+xml';
  const type = detectContentType(head);
  if (/^(text|application)\/javascript$/.test(type) || /^text/.test(type)) return 'text/plain; charset=utf-8';
  return type;
}

function withDisposition(kind: 'inline' | 'attachment', existing: string): string {
  if (existing === '') return kind;
  const other = kind === 'inline' ? /^attachment/ : /^inline/;
  return existing.replace(other, kind);
}

/** Workhorse's `safeContentDisposition`. */
export function safeContentDisposition(contentType: string, existing: string): string {
  if (/^attachment/.test(existing)) return existing;
  if (/^image\/svg\+xml$/.test(contentType)) return withDisposition('attachment', existing);
  if (/^image/.test(contentType) || /^text/.test(contentType) || /^video/.test(contentType) || /application\/pdf/.test(contentType)) {
    return withDisposition('inline', existing);
  }
  return withDisposition('attachment', existing);
}

/** `SafeContentHeaders`: the type from the bytes, and the disposition Rails proposed adjusted to it. */
export function safeContentHeaders(head: Buffer, proposedDisposition: string): { contentType: string; contentDisposition: string } {
  const contentType = safeContentType(head);
  return { contentType, contentDisposition: safeContentDisposition(contentType, proposedDisposition) };
}
