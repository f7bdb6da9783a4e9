/** `ovn-bgp-speaker roundtrip [-v] PATH`: captures decoded and re-encoded, byte for byte. */
import { captureFiles, roundTripCapture } from './roundtrip.js';

export function roundtripCommand(path: string, verbose: boolean, out: (line: string) => void): number {
  let bad = 0;
  for (const file of captureFiles(path)) {
    const r = roundTripCapture(file, verbose ? (line) => out(`  ${line}`) : undefined);
    out(`${r.failures.length ? 'FAIL' : 'ok  '} ${r.file}: ${r.identical}/${r.messages} byte-identical`);
    for (const f of r.failures) out(`     ${f}`);
    bad += r.failures.length;
  }
  return bad ? 1 : 0;
}
