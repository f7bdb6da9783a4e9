import { absolutePath } from './addresses.js';
import { MrtConfigDefaults as D, MAX_MRT_SECONDS, MRT_MESSAGES } from './constants.js';
import { type Decoded, integer, object, oneOf, optional, required } from './decoders.js';

const seconds = integer(0, MAX_MRT_SECONDS, `a whole number of seconds 0..${MAX_MRT_SECONDS}`);
const PATH_DOC = 'File path; %Y %m %d %H %M %S (UTC) and %s are replaced by the time the file is begun.';

export const mrtFields = {
  dump: optional(
    object('a mapping with path', {
      path: required(absolutePath, PATH_DOC),
      interval: optional(seconds, 'Seconds between dumps; 0: only on `dump rib`.', String(D.dumpInterval)),
    }),
    "The Loc-RIB's best paths as RFC 6396 TABLE_DUMP_V2 (FRR's dump bgp routes-mrt); absent: only `dump rib FILE`.",
  ),
  updates: optional(
    object('a mapping with path', {
      path: required(absolutePath, PATH_DOC),
      rotate: optional(seconds, 'Seconds between files; 0: one file.', String(D.rotate)),
      messages: optional(
        oneOf(MRT_MESSAGES),
        'all: every message both ways and state changes (FRR dump bgp all, plus what we send); updates: UPDATEs both ways.',
        D.messages,
      ),
    }),
    'Messages recorded as RFC 6396 BGP4MP (FRR dump bgp updates); absent: none.',
  ),
} as const;
export type RawMrt = Decoded<typeof mrtFields>;
