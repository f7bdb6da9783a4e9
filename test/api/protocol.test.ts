import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiDefaults, MAX_RIB_LIMIT } from '../../src/api/index.js';
import { prefixVersion, ribQueryParams } from '../../src/api/params.js';
import {
  type ControlRequest,
  type ControlResponse,
  dispatch,
  encodeResponse,
  encodeResponsePieces,
  isResponse,
  parseRequest,
} from '../../src/api/protocol.js';
import { fakeControl, SUMMARY } from './fake-control.js';

async function run(line: string): Promise<ControlResponse> {
  const r = parseRequest(line);
  return isResponse(r) ? r : dispatch(fakeControl(), r as ControlRequest);
}

const request = (method: string, params?: unknown, id: unknown = 1) =>
  JSON.stringify({ id, method, ...(params !== undefined && { params }) });

describe('parseRequest', () => {
  it.each([
    ['not JSON', 'summary', null, 'request is not JSON'],
    ['an array', '[1]', null, 'request must be a JSON object'],
    ['a bad id', '{"id":{},"method":"summary"}', null, '"id" must be a number or a string'],
    ['no method', '{"id":4}', 4, 'unknown method undefined (known: '],
    ['a method from the prototype', '{"id":5,"method":"toString"}', 5, 'unknown method "toString"'],
    ['params that are not an object', '{"id":6,"method":"rib","params":[1]}', 6, 'params must be an object'],
  ])('answers %s with bad-request', (_, line, id, message) => {
    const r = parseRequest(line);
    expect(isResponse(r)).toBe(true);
    expect(r).toMatchObject({ id, error: { code: 'bad-request' } });
    expect((r as { error: { message: string } }).error.message.startsWith(message)).toBe(true);
  });

  it('reads a request without an id (answered with id null) and without params', () => {
    expect(parseRequest('{"method":"summary"}')).toEqual({ id: null, method: 'summary', params: {} });
  });

  it('never throws, whatever the line (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (line) => {
        const r = parseRequest(line);
        expect(r).toHaveProperty('id');
      }),
    );
  });
});

describe('params', () => {
  it.each([
    ['198.18.10.0/24', 4],
    ['198.18.10.7', 4],
    ['0.0.0.0/0', 4],
    ['2001:db8::/32', 6],
    ['2001:db8::1/128', 6],
    ['198.18.10.0/33', null],
    ['2001:db8::/129', null],
    ['198.18.10.0/', null],
    ['198.18.10.0/-1', null],
    ['198.18.10.0/24/1', null],
    ['spine1', null],
    ['', null],
  ])('prefixVersion(%s) is %s', (text, version) => {
    expect(prefixVersion(text)).toBe(version);
  });

  it('fills the family from the prefix and the default limit', () => {
    expect(ribQueryParams({ prefix: '2001:db8::/32' })).toEqual({
      prefix: '2001:db8::/32',
      afi: 6,
      limit: ApiDefaults.RIB_LIMIT,
    });
    expect(ribQueryParams({})).toEqual({ limit: ApiDefaults.RIB_LIMIT });
    expect(ribQueryParams({ afi: 4, limit: MAX_RIB_LIMIT })).toEqual({ afi: 4, limit: MAX_RIB_LIMIT });
  });

  it.each([
    [{ afi: 5 }, '"afi" must be 4 or 6'],
    [{ afi: '4' }, '"afi" must be 4 or 6'],
    [{ afi: 6, prefix: '198.18.0.0/16' }, '"prefix" 198.18.0.0/16 is not an IPv6 prefix'],
    [{ limit: 0 }, `"limit" must be an integer in 1..${MAX_RIB_LIMIT}`],
    [{ limit: 1.5 }, `"limit" must be an integer in 1..${MAX_RIB_LIMIT}`],
    [{ limit: MAX_RIB_LIMIT + 1 }, `"limit" must be an integer in 1..${MAX_RIB_LIMIT}`],
    [{ prefix: 24 }, '"prefix" must be an address or a prefix such as 198.18.10.0/24, got 24'],
  ])('refuses rib params %j', async (params, message) => {
    expect(await run(request('rib', params))).toEqual({ id: 1, error: { code: 'bad-request', message } });
  });

  it.each([
    ['advertised', {}, '"peer" must be a neighbor name or address'],
    ['received', { peer: '' }, '"peer" must be a neighbor name or address'],
    ['neighbors', { peer: 7 }, '"peer" must be a neighbor name or address'],
    ['neighbor.enable', { peer: 'spine1', message: 'x' }, 'unknown param "message" (takes: peer)'],
    ['neighbor.shutdown', { peer: 'spine1', message: 5 }, '"message" must be a string'],
    [
      'advertised',
      { peer: 'spine1', afi: 4, verbose: 1 },
      'unknown param "verbose" (takes: peer, prefix, afi, limit)',
    ],
  ])('refuses %s params %j', async (method, params, message) => {
    expect(await run(request(method, params))).toEqual({ id: 1, error: { code: 'bad-request', message } });
  });

  it('takes a shutdown communication of 255 octets of UTF-8 and refuses 256 (RFC 9003)', async () => {
    const fits = `${'é'.repeat(127)}x`;
    expect(await run(request('neighbor.shutdown', { peer: 'spine1', message: fits }))).toEqual({
      id: 1,
      result: { peer: 'spine1', action: 'shutdown' },
    });
    const over = 'é'.repeat(128);
    expect(await run(request('neighbor.shutdown', { peer: 'spine1', message: over }))).toEqual({
      id: 1,
      error: {
        code: 'bad-request',
        message: '"message" is 256 octets; a shutdown communication holds at most 255 (RFC 9003)',
      },
    });
  });
});

describe('dispatch', () => {
  it('calls the speaker with checked params and echoes the id', async () => {
    const control = fakeControl();
    const r = await dispatch(control, {
      id: 'x',
      method: 'advertised',
      params: { peer: 'spine1', prefix: '198.19.5.7/32' },
    });
    expect(r).toEqual({ id: 'x', result: [expect.objectContaining({ prefix: '198.19.5.7/32' })] });
    expect(control.calls).toEqual([
      ['advertised', 'spine1', { prefix: '198.19.5.7/32', afi: 4, limit: ApiDefaults.RIB_LIMIT }],
    ]);
  });

  it('answers every action with the peer and what was done', async () => {
    for (const action of ['reset', 'shutdown', 'enable', 'refresh'] as const) {
      expect(await run(request(`neighbor.${action}`, { peer: '198.18.0.2' }))).toEqual({
        id: 1,
        result: { peer: '198.18.0.2', action },
      });
    }
  });

  it('keeps a ControlError code and turns anything else into internal', async () => {
    const failing = fakeControl({
      summary: () => {
        throw new RangeError('boom');
      },
      enableNeighbor: async () => {
        throw 'a string';
      },
    });
    expect(await dispatch(failing, { id: 1, method: 'summary', params: {} })).toEqual({
      id: 1,
      error: { code: 'internal', message: 'boom' },
    });
    expect(await dispatch(failing, { id: 2, method: 'neighbor.enable', params: { peer: 'spine1' } })).toEqual(
      {
        id: 2,
        error: { code: 'internal', message: 'a string' },
      },
    );
    expect(await run(request('neighbors', { peer: 'nope' }))).toEqual({
      id: 1,
      error: { code: 'unknown-peer', message: 'no neighbor named nope' },
    });
  });

  it('encodes one line per response, and an error when the result is not JSON', () => {
    expect(encodeResponse({ id: 1, result: SUMMARY })).toBe(
      `${JSON.stringify({ id: 1, result: SUMMARY })}\n`,
    );
    const line = encodeResponse({ id: 2, result: { n: 1n } });
    expect(JSON.parse(line)).toMatchObject({ id: 2, error: { code: 'internal' } });
    expect(line.indexOf('\n')).toBe(line.length - 1);
  });
});

describe('encodeResponsePieces', () => {
  it('gives the same line as encodeResponse, in pieces of at most the slice (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 30 }),
        fc.integer({ min: 1, max: 8 }),
        (items, slice) => {
          const response = { id: 3, result: items };
          const pieces = [...encodeResponsePieces(response, slice)];
          expect(pieces.join('')).toBe(encodeResponse(response));
          const expected = items.length <= slice ? 1 : Math.ceil(items.length / slice) + 1;
          expect(pieces).toHaveLength(expected);
        },
      ),
    );
  });

  it('writes what JSON cannot carry in an array as null, as JSON.stringify does', () => {
    const response = { id: 'x', result: [1, undefined, () => 0, 'a'] };
    expect([...encodeResponsePieces(response, 1)].join('')).toBe(encodeResponse(response));
  });

  it('throws on an entry JSON cannot carry only when that slice is reached', () => {
    const pieces = encodeResponsePieces({ id: 1, result: [1, 2, 3n] }, 2);
    expect(pieces.next().value).toBe('{"id":1,"result":[1,2');
    expect(() => pieces.next()).toThrow(TypeError);
  });
});
