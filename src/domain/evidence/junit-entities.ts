/**
 * Decoding of the references XML itself defines: the five predefined entities and numeric
 * character references. The JUnit parser runs fast-xml-parser with entity processing off (so no
 * DOCTYPE entity can ever expand) and decodes here instead; the library's own decoder also leaves
 * numeric references such as pytest's `&#10;` undecoded unless HTML entities are switched on.
 * Any other `&name;` is left as written.
 */

// A Map, not an object literal: `&constructor;` must not find Object.prototype.constructor.
const PREDEFINED: ReadonlyMap<string, string> = new Map([
  ['lt', '<'],
  ['gt', '>'],
  ['amp', '&'],
  ['quot', '"'],
  ['apos', "'"],
]);

const REFERENCE = /&(#[xX][0-9a-fA-F]{1,8}|#[0-9]{1,10}|[A-Za-z][A-Za-z0-9._-]*);/g;

export function decodeXmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole: string, ref: string) => {
    if (ref.startsWith('#')) {
      const hex = ref[1] === 'x' || ref[1] === 'X';
      const codePoint = Number.parseInt(ref.slice(hex ? 2 : 1), hex ? 16 : 10);
      return isXmlChar(codePoint) ? String.fromCodePoint(codePoint) : '\uFFFD';
    }
    return PREDEFINED.get(ref) ?? whole;
  });
}

/** XML 1.0 §2.2 Char production. */
function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}
