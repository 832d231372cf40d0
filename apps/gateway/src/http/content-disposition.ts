/**
 * `Content-Disposition` as Rails builds it (`ActionDispatch::Http::ContentDisposition.format`, which GitLab's
 * `present_disk_file!` and `send_upload` use): `<disposition>; filename="<ASCII>"; filename*=UTF-8''<UTF-8>`.
 * The ASCII form is `I18n.transliterate` of the name (accents dropped, anything else `?`), percent-escaped outside
 * `TRADITIONAL_ESCAPED_CHAR`'s set; the UTF-8 form percent-escapes every byte outside RFC 5987's attr-chars.
 */

/** Characters `I18n.transliterate`'s default approximations spell with other letters. */
const APPROXIMATIONS: Readonly<Record<string, string>> = {
  Æ: 'AE', æ: 'ae', Ø: 'O', ø: 'o', Œ: 'OE', œ: 'oe', ß: 'ss', Þ: 'TH', þ: 'th', Ð: 'D', ð: 'd', Đ: 'D', đ: 'd', Ł: 'L', ł: 'l',
  Ħ: 'H', ħ: 'h', ı: 'i', Ŀ: 'L', ŀ: 'l', Ŋ: 'NG', ŋ: 'ng', Ŧ: 'T', ŧ: 't',
};

/** Ruby I18n's default transliteration: ASCII kept, Latin letters without their marks, anything else `?`. */
export function transliterate(text: string): string {
  let out = '';
  for (const ch of text) {
    if (ch.charCodeAt(0) < 0x80) out += ch;
    else if (APPROXIMATIONS[ch]) out += APPROXIMATIONS[ch];
    else {
      const base = ch.normalize('NFD').replace(/\p{M}/gu, '');
      out += /^[\x20-\x7e]+$/.test(base) ? base : '?';
    }
  }
  return out;
}

function percentEscape(text: string, keep: RegExp): string {
  let out = '';
  for (const ch of text) {
    if (keep.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `TRADITIONAL_ESCAPED_CHAR = /[^ A-Za-z0-9!\#$+.^_`|~-]/` (what may stay unescaped in the quoted ASCII name). */
const TRADITIONAL = /^[ A-Za-z0-9!#$+.^_`|~-]$/;
/** `RFC_5987_ESCAPED_CHAR = /[^A-Za-z0-9!\#$&+.^_`|~-]/`. */
const RFC_5987 = /^[A-Za-z0-9!#$&+.^_`|~-]$/;

export function contentDisposition(disposition: 'inline' | 'attachment', fileName: string): string {
  return `${disposition}; filename="${percentEscape(transliterate(fileName), TRADITIONAL)}"; filename*=UTF-8''${percentEscape(fileName, RFC_5987)}`;
}
