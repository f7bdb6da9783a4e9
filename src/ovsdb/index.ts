/**
 * OVSDB (RFC 7047) client for OVN's Northbound and Southbound databases: typed replicas kept
 * exact across reconnects and RAFT failovers, transact, and the building blocks beneath.
 */

export type { Clock, Logger } from '../components/index.js';
export { systemClock } from '../components/index.js';
export type { Channel } from './channel.js';
export type {
  BatchReason,
  ChangeBatch,
  ClientEvents,
  ClientStats,
  ClientStatus,
  OvsdbClientComponents,
  OvsdbClientInit,
  TypedRowChange,
} from './client.js';
export { OvsdbClient } from './client.js';
export type { ConnectionStats } from './connection.js';
export { JsonRpcConnection } from './connection.js';
export { ZERO_UUID } from './constants.js';
export type { Atom, Value, ValueInput } from './datum.js';
export { EMPTY_MAP, EMPTY_SET, NamedUuid, namedUuid } from './datum.js';
export type { OvsdbErrorKind } from './errors.js';
export { OvsdbError, TransactionError } from './errors.js';
export { JsonFramer } from './framer.js';
export type { Clause, ConditionFunction, MonitorSpec, MonitorWhere, TableMonitorSpec } from './monitor.js';
export { prepareMonitor } from './monitor.js';
export type {
  Mutation,
  Mutator,
  Operation,
  OperationResult,
  RowInput,
  TransactResult,
  Where,
} from './operations.js';
export type { Remote } from './remote.js';
export { parseRemote, parseRemotes } from './remote.js';
export type { RowChange } from './replica.js';
export { Replica } from './replica.js';
export type { Row } from './rows.js';
export { TableCodec } from './rows.js';
export type { ColumnKind, ColumnType, DatabaseSchema, TableSchema } from './schema.js';
export { parseSchema } from './schema.js';
export type {
  MonitorHandler,
  MonitorSinceResult,
  MonitorUpdate,
  SessionComponents,
  SessionOptions,
} from './session.js';
export { OvsdbSession } from './session.js';
export type { TlsFiles } from './transport.js';
