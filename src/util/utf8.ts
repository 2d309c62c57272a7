/**
 * Well-formed UTF-8 (the Unicode Standard's table of well-formed byte sequences): per range of lead bytes, the
 * sequence's length and the range its second byte must lie in; every later byte is a plain continuation (0x80–0xBF).
 * The narrowed second-byte ranges rule out overlong forms, surrogates and anything past U+10FFFF.
 */
const LEADS: readonly { lead: [number, number]; length: number; second: [number, number] }[] = [
  { lead: [0xc2, 0xdf], length: 2, second: [0x80, 0xbf] },
  { lead: [0xe0, 0xe0], length: 3, second: [0xa0, 0xbf] },
  { lead: [0xe1, 0xec], length: 3, second: [0x80, 0xbf] },
  { lead: [0xed, 0xed], length: 3, second: [0x80, 0x9f] },
  { lead: [0xee, 0xef], length: 3, second: [0x80, 0xbf] },
  { lead: [0xf0, 0xf0], length: 4, second: [0x90, 0xbf] },
  { lead: [0xf1, 0xf3], length: 4, second: [0x80, 0xbf] },
  { lead: [0xf4, 0xf4], length: 4, second: [0x80, 0x8f] },
];

/**
 * The offset of the first byte that is not well-formed UTF-8, or undefined when every byte is; a sequence cut short
 * (by a wrong byte or the end) is ill-formed at its lead byte. Pure.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  const within = (at: number, [lo, hi]: readonly [number, number]) => at < bytes.length && bytes[at]! >= lo && bytes[at]! <= hi;
  for (let i = 0; i < bytes.length;) {
    if (bytes[i]! <= 0x7f) {
      i++;
      continue;
    }
    const seq = LEADS.find((l) => within(i, l.lead));
    if (!seq || !within(i + 1, seq.second)) return i;
    for (let k = 2; k < seq.length; k++) if (!within(i + k, [0x80, 0xbf])) return i;
    i += seq.length;
  }
  return undefined;
}
