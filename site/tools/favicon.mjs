// favicon.ico for pages that name no icon (the runnable snippet): browsers ask for
// /favicon.ico then, and a 404 there is a console error. A 32x32 ICO holding one 32-bit
// bitmap, drawn here to match favicon.svg: six cache blocks on the site's blue.

export function faviconIco() {
  const size = 32;
  const blue = [0xbf, 0x5f, 0x1f, 0xff];        // BGRA of #1f5fbf
  const white = [0xff, 0xff, 0xff, 0xff];
  const faint = [0xdf, 0xbf, 0xa9, 0xff];       // white at 45% over the blue
  const pixel = (x, y) => {                     // y from the top, as in the SVG
    const rounded = (x < 2 || x > 29) && (y < 2 || y > 29);
    if (rounded) return [0, 0, 0, 0];
    const row = y >= 7 && y < 15 ? 0 : y >= 17 && y < 25 ? 1 : -1;
    const col = x >= 5 && x < 11 ? 0 : x >= 13 && x < 19 ? 1 : x >= 21 && x < 27 ? 2 : -1;
    if (row < 0 || col < 0) return blue;
    return col === 2 ? faint : white;
  };
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0);       // reserved
  header.writeUInt16LE(1, 2);       // type: icon
  header.writeUInt16LE(1, 4);       // one image
  const xor = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      Buffer.from(pixel(x, y)).copy(xor, ((size - 1 - y) * size + x) * 4);   // rows bottom-up
    }
  }
  const and = Buffer.alloc(size * 4);  // 1 bit per pixel, all opaque (alpha decides)
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(size, 4);
  info.writeInt32LE(size * 2, 8);   // XOR and AND bitmaps together
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(xor.length + and.length, 20);
  const image = Buffer.concat([info, xor, and]);
  header.writeUInt8(size, 6);
  header.writeUInt8(size, 7);
  header.writeUInt16LE(1, 10);      // planes
  header.writeUInt16LE(32, 12);     // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(22, 18);     // offset of the image
  return Buffer.concat([header, image]);
}
