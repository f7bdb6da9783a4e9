import type { Writer } from '../../bgp/wire/index.js';
import {
  VRF_DEFAULT,
  ZEBRA_HEADER_MARKER,
  ZEBRA_HEADER_SIZE,
  ZEBRA_MAX_PACKET_SIZE,
  ZSERV_VERSION,
} from './constants.js';
import { ZapiError } from './errors.js';

/*
 * The ZAPI header (lib/zclient.c, zclient_create_header / zclient_read_header):
 *
 *    0       2    3    4                 8        10
 *   +-------+----+----+-----------------+--------+
 *   |length |0xFE|ver |     vrf_id      |command |   all big-endian; length counts the header
 *   +-------+----+----+-----------------+--------+
 */

export interface ZapiHeader {
  readonly length: number;
  readonly version: number;
  readonly vrfId: number;
  readonly command: number;
}

/**
 * Checks marker and version from the first 4 bytes alone, so a peer speaking another version is
 * refused with a clear message even when its length field means something else there.
 */
export function checkMarkerAndVersion(marker: number, version: number): void {
  if (marker !== ZEBRA_HEADER_MARKER)
    throw new ZapiError(
      'bad-marker',
      `header marker 0x${marker.toString(16)} is not 0xfe: the peer does not speak ZAPI version ${ZSERV_VERSION}`,
      { marker },
    );
  if (version !== ZSERV_VERSION)
    throw new ZapiError(
      'unsupported-version',
      `zebra speaks ZAPI version ${version}, this client speaks only version ${ZSERV_VERSION} (the version of FRR 8.4 and 10.3)`,
      { version, supported: ZSERV_VERSION },
    );
}

export function checkLength(length: number): void {
  if (length < ZEBRA_HEADER_SIZE || length > ZEBRA_MAX_PACKET_SIZE)
    throw new ZapiError(
      'bad-length',
      `frame length ${length} outside ${ZEBRA_HEADER_SIZE}..${ZEBRA_MAX_PACKET_SIZE}`,
      { length },
    );
}

/** Reads and checks a header at `off` (at least ZEBRA_HEADER_SIZE bytes must be there). */
export function decodeHeader(b: Uint8Array, off = 0): ZapiHeader {
  checkMarkerAndVersion(b[off + 2], b[off + 3]);
  const length = (b[off] << 8) | b[off + 1];
  checkLength(length);
  const vrfId = ((b[off + 4] << 24) | (b[off + 5] << 16) | (b[off + 6] << 8) | b[off + 7]) >>> 0;
  return { length, version: b[off + 3], vrfId, command: (b[off + 8] << 8) | b[off + 9] };
}

/**
 * Appends one whole frame: the header with a placeholder length, the body, then the length.
 * A frame over zebra's packet size would make zebra drop us, so it is refused here instead.
 * On any failure the writer is rolled back to where the frame began: a batch never holds half
 * a frame.
 */
export function writeFrame(w: Writer, command: number, body: (w: Writer) => void, vrfId = VRF_DEFAULT): void {
  const start = w.mark();
  try {
    w.u16(0).u8(ZEBRA_HEADER_MARKER).u8(ZSERV_VERSION).u32(vrfId).u16(command);
    body(w);
    const length = w.pos - start;
    if (length > ZEBRA_MAX_PACKET_SIZE)
      throw new ZapiError('unencodable', `frame of ${length} bytes exceeds zebra's ${ZEBRA_MAX_PACKET_SIZE}`);
    w.patch16(start, length);
  } catch (err) {
    w.pos = start;
    throw err;
  }
}
