import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8 } from '../src/util/utf8.js';
import { seededUniform } from '../src/util/random.js';

const strict = new TextDecoder('utf-8', { fatal: true });
const decodes = (bytes: Uint8Array) => {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe('firstInvalidUtf8: where a file stops being UTF-8', () => {
  it.each<[string, number[], number | undefined]>([
    ['ASCII', [0x61, 0x62], undefined],
    ['é in UTF-8', [0x63, 0xc3, 0xa9], undefined],
    ['é in Windows-1252', [0x63, 0x61, 0x66, 0xe9, 0x73], 3],
    ['a lone continuation byte', [0x80], 0],
    ['an overlong slash', [0x61, 0xc0, 0xaf], 1],
    ['a surrogate (U+D800)', [0xed, 0xa0, 0x80], 0],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['an emoji', [0xf0, 0x9f, 0x98, 0x80], undefined],
    ['a sequence cut short by the end', [0x61, 0xe2, 0x82], 1],
    ['a curly quote in Windows-1252', [0x93, 0x68, 0x69, 0x94], 0],
  ])('%s', (_, bytes, at) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(at);
  });

  it("agrees with the platform's strict decoder on 20,000 seeded byte strings, and everything before the offset decodes", () => {
    // Bytes weighted towards the multi-byte lead and continuation ranges, where the edge cases are.
    const pool = [
      0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3,
      0xf4, 0xf5, 0xff,
    ];
    for (let k = 0; k < 20000; k++) {
      const length = Math.floor(seededUniform(7, 'utf8-length', String(k)) * 8);
      const bytes = Uint8Array.from(
        { length },
        (_, i) => pool[Math.floor(seededUniform(7, 'utf8-byte', String(k), String(i)) * pool.length)]!,
      );
      const at = firstInvalidUtf8(bytes);
      expect(at === undefined, Buffer.from(bytes).toString('hex')).toBe(decodes(bytes));
      if (at !== undefined) expect(decodes(bytes.subarray(0, at)), Buffer.from(bytes).toString('hex')).toBe(true);
    }
  });
});
