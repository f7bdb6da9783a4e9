import { KindedError } from '../components/index.js';

export type MrtErrorKind =
  /** The file ends inside a record. */
  | 'truncated'
  /** A record's fields do not add up (RFC 6396 lengths, counts, prefix lengths). */
  | 'malformed'
  /** A record we do not read (a type or subtype other than TABLE_DUMP_V2 and BGP4MP). */
  | 'unsupported'
  /** A RIB record names a peer the PEER_INDEX_TABLE does not hold, or comes before it. */
  | 'no-peer-index';

/** A problem with an MRT file; the message names the record (by its byte offset) and the field. */
export class MrtError extends KindedError<MrtErrorKind> {}
