/**
 * The offset of the first byte that is not well-formed UTF-8 (the Unicode Standard's table of well-formed byte
 * sequences: no overlong forms, no surrogates, nothing past U+10FFFF), or undefined when every byte is. A sequence
 * cut short by the end of the bytes is ill-formed at its first byte. Pure.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  const inRange = (at: number, lo: number, hi: number) => at < bytes.length && bytes[at]! >= lo && bytes[at]! <= hi;
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b <= 0x7f) {
      i++;
      continue;
    }
    // The second byte's range depends on the first; the rest are plain continuation bytes (0x80–0xBF).
    const [length, lo, hi] =
      b >= 0xc2 && b <= 0xdf
        ? [2, 0x80, 0xbf]
        : b === 0xe0
          ? [3, 0xa0, 0xbf]
          : b === 0xed
            ? [3, 0x80, 0x9f]
            : b >= 0xe1 && b <= 0xef
              ? [3, 0x80, 0xbf]
              : b === 0xf0
                ? [4, 0x90, 0xbf]
                : b === 0xf4
                  ? [4, 0x80, 0x8f]
                  : b >= 0xf1 && b <= 0xf3
                    ? [4, 0x80, 0xbf]
                    : [0, 0, 0];
    if (length === 0 || !inRange(i + 1, lo, hi)) return i;
    for (let k = 2; k < length; k++) if (!inRange(i + k, 0x80, 0xbf)) return i;
    i += length;
  }
  return undefined;
}
