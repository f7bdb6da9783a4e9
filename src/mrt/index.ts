/**
 * RFC 6396 MRT: the Loc-RIB dumped as TABLE_DUMP_V2, sessions' messages recorded as BGP4MP,
 * and MRT files read back as routes (an injection's source). The codec is pure; `files.ts`
 * is the shell that owns files and timers.
 */
export {
  Bgp4mpSubtype,
  MRT_HEADER_LENGTH,
  MrtAfi,
  MrtBgpState,
  MrtDefaults,
  type MrtStateName,
  MrtType,
  PeerTypeBit,
  TableDumpV2Subtype,
} from './constants.js';
export { MrtError, type MrtErrorKind } from './errors.js';
export {
  type DumpFileResult,
  dumpTableToFile,
  expandPath,
  RecordingFile,
  type RecordingInit,
} from './files.js';
export { Bgp4mpRecorder } from './recorder.js';
export {
  type Bgp4mpPeering,
  type Bgp4mpRecord,
  decodeBgp4mp,
  decodePeerIndexTable,
  decodeRib,
  encodePeerIndexTable,
  finishRecord,
  finishRib,
  type IndexedPeer,
  isUnicastRib,
  type MrtRecord,
  type PeerIndexTable,
  type RibEntry,
  type RibRecord,
  ribEntry,
  ribSubtype,
  startRecord,
  startRib,
} from './records.js';
export {
  type MrtReadOptions,
  type MrtReadResult,
  MrtRouteReader,
  type MrtUpdateSink,
  readMrtRoutes,
} from './routes.js';
export { MrtSplitter, splitRecords } from './splitter.js';
export {
  type ChunkSink,
  dumpTable,
  type TableDumpInit,
  type TableDumpResult,
  tableDumpAttributes,
} from './table-dump.js';
