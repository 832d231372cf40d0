import { detectContentType, isSvg, safeContentDisposition, safeContentHeaders } from './content-sniffing';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe('detectContentType (Go net/http DetectContentType)', () => {
  it.each([
    [PNG, 'image/png'],
    [Buffer.from('GIF89a....'), 'image/gif'],
    [Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    [Buffer.from('%PDF-1.7'), 'application/pdf'],
    [Buffer.from('  <html><body>'), 'text/html; charset=utf-8'],
    [Buffer.from('<?xml version="1.0"?><a/>'), 'text/xml; charset=utf-8'],
    [Buffer.from('hello world\n'), 'text/plain; charset=utf-8'],
    [Buffer.from([0x50, 0x4b, 0x03, 0x04]), 'application/zip'],
    [Buffer.from([0x00, 0x01, 0x02, 0x03, 0xfe]), 'application/octet-stream'],
    [Buffer.from([0x00, 0x00, 0x01, 0x00]), 'image/x-icon'],
    [Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.from([0, 0, 0, 0]), Buffer.from('isommp42')]), 'video/mp4'],
  ])('%#: %s', (data, type) => {
    expect(detectContentType(data)).toBe(type);
  });
});

describe('Workhorse SafeContentHeaders', () => {
  it('serves text as plain text inline, HTML included', () => {
    expect(safeContentHeaders(Buffer.from('<html><script>alert(1)</script>'), 'inline; filename="x.html"'))
      .toEqual({ contentType: 'text/plain; charset=utf-8', contentDisposition: 'inline; filename="x.html"' });
  });

  it('keeps an attachment an attachment, and makes an SVG one', () => {
    expect(safeContentDisposition('image/png', 'attachment; filename="a.png"')).toBe('attachment; filename="a.png"');
    const svg = Buffer.from('<?xml version="1.0"?>\n<!-- c --><svg xmlns="http://www.w3.org/2000/svg"></svg>');
    expect(isSvg(svg)).toBe(true);
    expect(safeContentHeaders(svg, 'inline; filename="a.svg"')).toEqual({ contentType: 'image/svg+xml', contentDisposition: 'attachment; filename="a.svg"' });
  });

  it('inlines images, video and PDF; anything else is an attachment', () => {
    expect(safeContentHeaders(PNG, 'inline; filename="a.png"').contentDisposition).toBe('inline; filename="a.png"');
    expect(safeContentDisposition('application/pdf', 'inline; x')).toBe('inline; x');
    expect(safeContentDisposition('application/zip', 'inline; filename="a.zip"')).toBe('attachment; filename="a.zip"');
    expect(safeContentDisposition('audio/wave', '')).toBe('attachment');
  });
});
