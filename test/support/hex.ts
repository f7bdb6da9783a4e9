/**
 * Hex fixtures with comments: `hex\`ff ff # marker\`` or a string. Everything after `#` on a
 * line is dropped, as are spaces, `|` separators and newlines.
 */
export function hex(strings: TemplateStringsArray | string, ...values: unknown[]): Uint8Array {
  const text = typeof strings === 'string' ? strings : String.raw({ raw: strings }, ...values);
  const clean = text
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .join('')
    .replace(/[\s|]/g, '');
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean)) throw new Error(`bad hex fixture: ${clean}`);
  return Uint8Array.from(Buffer.from(clean, 'hex'));
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
