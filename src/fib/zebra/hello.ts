import { Reader } from '../../bgp/wire/index.js';
import { ZebraErrorType } from './constants.js';
import { commandName, DIALECTS, type ZapiDialect } from './dialect.js';
import { ZapiError } from './errors.js';
import type { ZapiFrame } from './framer.js';
import { decodeCapabilities, decodeError, type ZapiCapabilities } from './messages.js';
import { asMalformed } from './route-message.js';

/*
 * Which dialect a zebra speaks, from its answer to HELLO. zebra says nothing before a client's
 * first message, and both versions put ZAPI version 6 in every header, so the client says HELLO
 * in the first dialect it knows and reads the answer:
 *
 *   CAPABILITIES of that dialect          -> it is that one
 *   ZEBRA_ERROR (INVALID_MSG_TYPE) with   -> zebra has no handler for that command number:
 *   another dialect's ERROR number           it numbers as that other dialect; say HELLO again
 *                                            in that one (10.3's HELLO, 19, is CAPABILITIES to
 *                                            an 8.4 zebra, which answers ERROR 118; 8.4's, 18,
 *                                            is ROUTER_ID_UPDATE to 10.3, which answers 120)
 *   anything else                         -> a numbering this client does not know: refused
 *
 * zebra keeps the connection after such an ERROR, so the second HELLO goes on the same socket.
 */

export type HelloAnswer =
  | { readonly kind: 'up'; readonly dialect: ZapiDialect; readonly caps: ZapiCapabilities }
  | { readonly kind: 'retry'; readonly dialect: ZapiDialect }
  | { readonly kind: 'ignore' }
  | { readonly kind: 'refused'; readonly error: ZapiError };

/**
 * What `frame` means while the HELLO of `tried` waits for its answer; `others` are the dialects
 * not yet tried.
 */
export function answerToHello(
  frame: ZapiFrame,
  tried: ZapiDialect,
  others: readonly ZapiDialect[],
): HelloAnswer {
  const r = new Reader(frame.body);
  try {
    if (frame.command === tried.command.CAPABILITIES) {
      if (frame.body.length < tried.capabilitiesLength) return refused(frame, tried, others);
      return { kind: 'up', dialect: tried, caps: decodeCapabilities(r, tried) };
    }
    // VRF_ADD (33 in both) follows CAPABILITIES: one that comes first says nothing either way.
    if (frame.command === tried.command.VRF_ADD) return { kind: 'ignore' };
    const other = others.find((d) => d.command.ERROR === frame.command);
    if (other !== undefined && frame.body.length === 4 && decodeError(r) === ZebraErrorType.INVALID_MSG_TYPE)
      return { kind: 'retry', dialect: other };
    return refused(frame, tried, others);
  } catch (err) {
    const e = asMalformed(err, commandName(tried, frame.command));
    return { kind: 'refused', error: e instanceof ZapiError ? e : new ZapiError('malformed', String(e)) };
  }
}

function refused(frame: ZapiFrame, tried: ZapiDialect, others: readonly ZapiDialect[]): HelloAnswer {
  const expected = [
    `${tried.name}'s CAPABILITIES (${tried.command.CAPABILITIES}, ${tried.capabilitiesLength} bytes)`,
    ...others.map((d) => `${d.name}'s ERROR (${d.command.ERROR})`),
  ];
  return {
    kind: 'refused',
    error: new ZapiError(
      'unsupported-version',
      `zebra answered ${tried.name}'s HELLO with command ${frame.command} (${frame.body.length} bytes), not ${expected.join(' or ')}: it numbers ZAPI as none of ${DIALECTS.map((d) => d.name).join(', ')}`,
      { command: frame.command, length: frame.body.length, tried: tried.name },
    ),
  };
}
