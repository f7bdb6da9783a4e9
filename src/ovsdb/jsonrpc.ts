import { OvsdbError, preview } from './errors.js';

/*
 * JSON-RPC 1.0 as RFC 7047 section 4 uses it. Requests carry a non-null id; notifications
 * are requests with `"id": null`; responses carry `result` and `error`, one of them null
 * (ovsdb-server leaves `result` out entirely on method errors).
 */

export type JsonRpcId = string | number | boolean | readonly unknown[] | { readonly [k: string]: unknown };

export type JsonRpcMessage =
  | {
      readonly kind: 'request';
      readonly method: string;
      readonly params: readonly unknown[];
      readonly id: JsonRpcId;
    }
  | { readonly kind: 'notification'; readonly method: string; readonly params: readonly unknown[] }
  | {
      readonly kind: 'response';
      readonly id: JsonRpcId | null;
      readonly result: unknown;
      readonly error: unknown;
    };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Classifies one framed JSON value; throws OvsdbError('bad-message') for anything else. */
export function parseMessage(value: unknown): JsonRpcMessage {
  if (!isObject(value)) throw new OvsdbError('bad-message', `not a JSON-RPC object: ${preview(value)}`);
  const id = value.id === undefined ? null : (value.id as JsonRpcId | null);
  if ('method' in value) {
    if (typeof value.method !== 'string') {
      throw new OvsdbError('bad-message', `method is not a string: ${preview(value)}`);
    }
    const params = value.params ?? [];
    if (!Array.isArray(params))
      throw new OvsdbError('bad-message', `params is not an array: ${preview(value)}`);
    if (id === null) return { kind: 'notification', method: value.method, params };
    return { kind: 'request', method: value.method, params, id };
  }
  if ('result' in value || 'error' in value) {
    return { kind: 'response', id, result: value.result ?? null, error: value.error ?? null };
  }
  throw new OvsdbError('bad-message', `neither request nor response: ${preview(value)}`);
}

export function encodeRequest(method: string, params: readonly unknown[], id: JsonRpcId): string {
  return JSON.stringify({ method, params, id });
}

export function encodeResponse(id: JsonRpcId, result: unknown, error: unknown = null): string {
  return JSON.stringify({ id, result, error });
}

/** Text for an error member, which ovsdb-server sends as a string or as `{error, details}`. */
export function describeRpcError(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isObject(error)) {
    const head = typeof error.error === 'string' ? error.error : preview(error);
    return typeof error.details === 'string' ? `${head}: ${error.details}` : head;
  }
  return preview(error);
}

/** The short error name (`"unknown method"`, `"unknown database"`, ...) of an error member. */
export function rpcErrorName(error: unknown): string | undefined {
  if (typeof error === 'string') return error;
  if (isObject(error) && typeof error.error === 'string') return error.error;
  return undefined;
}

/** Responses are matched to requests by id; ids of any JSON type compare by their JSON text. */
export function idKey(id: unknown): string {
  return typeof id === 'number' ? String(id) : JSON.stringify(id);
}
