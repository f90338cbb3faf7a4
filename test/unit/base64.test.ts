import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase64 } from '../../src/domain/base64.ts';

describe('decodeBase64', () => {
  it('decodes padded, unpadded, wrapped and URL-safe Base64 to the original bytes', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 100, 1001]) {
      const bytes = randomBytes(n);
      const std = bytes.toString('base64');
      for (const text of [std, std.replace(/=+$/, ''), std.replace(/.{76}/g, '$&\r\n'), std.replace(/.{64}/g, '$&\n'), bytes.toString('base64url')]) {
        expect(decodeBase64(text)?.equals(bytes), `${n}: ${text.slice(0, 20)}`).toBe(true);
      }
    }
  });

  it.each([
    ['a character outside the alphabet', 'QUJD*EVG'],
    ['text', 'this is *not* base64!'],
    ['padding inside', 'QQ==QUJD'],
    ['padding that is not at a group end', 'QUJDRA=x'],
    ['three padding characters', 'QQ==='],
    ['padding on a full group', 'QUJD='],
    ['a lone last character', 'QUJDR'],
    ['a non-Latin character', 'QUJDéEVG'],
    ['a NUL', 'QUJD\u0000EVG'],
  ])('refuses %s', (_name, text) => {
    expect(decodeBase64(text)).toBeUndefined();
  });

  it('refuses any single junk character placed anywhere in valid Base64', () => {
    const text = randomBytes(30).toString('base64');
    for (let i = 0; i <= text.length; i++) {
      for (const junk of ['*', '.', '!', '"', '\u0000', 'é', '=']) {
        const bad = text.slice(0, i) + junk + text.slice(i);
        if (junk === '=' && i === text.length) continue; // a trailing '=' after a full group is refused by the padding rule below
        expect(decodeBase64(bad), JSON.stringify(bad)).toBeUndefined();
      }
    }
    expect(decodeBase64(`${text}=`)).toBeUndefined();
  });
});
