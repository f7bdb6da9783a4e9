import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureFiles, roundTripCapture } from '../../src/cli/roundtrip.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/bgp');

describe('roundtrip command core', () => {
  it('reports every captured message byte-identical', () => {
    for (const file of captureFiles(FIXTURES)) {
      const r = roundTripCapture(file);
      expect(r.failures, r.file).toEqual([]);
      expect(r.identical).toBe(r.messages);
    }
  });

  it('names the message that does not decode', () => {
    const file = captureFiles(FIXTURES)[0];
    const capture = JSON.parse(readFileSync(file, 'utf8'));
    // Break the marker of the third message: RFC 4271 6.1 Connection Not Synchronized.
    capture.messages[2].hex = `00${capture.messages[2].hex.slice(2)}`;
    const dir = mkdtempSync(join(tmpdir(), 'obs-rt-'));
    try {
      const broken = join(dir, 'broken.json');
      writeFileSync(broken, JSON.stringify(capture));
      const r = roundTripCapture(broken);
      expect(r.failures).toHaveLength(1);
      expect(r.failures[0]).toMatch(/^#2 .*MESSAGE_HEADER\/CONNECTION_NOT_SYNCHRONIZED/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
