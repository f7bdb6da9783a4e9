import { NLMSG_HDRLEN, NLMSGERR_LEN, NlmFlag, NlmsgerrAttr, NlmsgType } from './constants.js';
import { forEachAttr, type NlMessage, type NlView, type NlWriter, nlAlign } from './nl-buffer.js';

/**
 * NLMSG_ERROR: the kernel's answer to one request, an ACK when `error` is 0.
 *
 *   i32 error (-errno) | nlmsghdr of the request | request body (absent when CAPPED) | TLVs (ACK_TLVS)
 */
export interface NlAck {
  /** Positive errno; 0 for an ACK. */
  readonly errno: number;
  /** The request's sequence number and type, copied from its header. */
  readonly seq: number;
  readonly requestType: number;
  /** NLMSGERR_ATTR_MSG: the kernel's reason in words (NETLINK_EXT_ACK). */
  readonly detail?: string;
  /** NLMSGERR_ATTR_OFFS: offset of the offending attribute in the request. */
  readonly offset?: number;
}

export function decodeAck(v: NlView, m: NlMessage): NlAck {
  v.need(m.body, NLMSGERR_LEN, m.end, 'nlmsgerr');
  const error = v.i32(m.body);
  const reqHdr = m.body + 4;
  const seq = v.u32(reqHdr + 8);
  const requestType = v.u16(reqHdr + 4);
  // Without NETLINK_CAP_ACK an error echoes the whole request before the TLVs.
  let tlvs = m.body + NLMSGERR_LEN;
  if (!(m.flags & NlmFlag.CAPPED) && error !== 0)
    tlvs = m.body + 4 + nlAlign(Math.max(NLMSG_HDRLEN, v.u32(reqHdr)));
  let detail: string | undefined;
  let offset: number | undefined;
  if (m.flags & NlmFlag.ACK_TLVS && tlvs <= m.end)
    forEachAttr(v, tlvs, m.end, 'nlmsgerr TLVs', (type, start, end) => {
      if (type === NlmsgerrAttr.MSG) detail = cString(v.buf, start, end);
      else if (type === NlmsgerrAttr.OFFS && end - start >= 4) offset = v.u32(start);
    });
  return {
    errno: error === 0 ? 0 : -error,
    seq,
    requestType,
    ...(detail !== undefined && { detail }),
    ...(offset !== undefined && { offset }),
  };
}

/** NLMSG_DONE ends a dump; its body is an i32 error (0, or -errno when the dump failed). */
export function decodeDone(v: NlView, m: NlMessage): number {
  const error = m.end - m.body >= 4 ? v.i32(m.body) : 0;
  return error === 0 ? 0 : -error;
}

/** An NLMSG_ERROR as a capped kernel would send it: for the fake kernels of the tests. */
export function writeAck(
  w: NlWriter,
  request: { readonly type: number; readonly flags: number; readonly seq: number; readonly pid: number },
  errno: number,
  detail?: string,
): void {
  const start = w.begin(NlmsgType.ERROR, NlmFlag.CAPPED | (detail ? NlmFlag.ACK_TLVS : 0), request.seq, 0);
  w.i32(-errno);
  w.u32(NLMSG_HDRLEN);
  w.u16(request.type);
  w.u16(request.flags);
  w.u32(request.seq);
  w.u32(request.pid);
  if (detail) {
    const a = w.attrBegin(NlmsgerrAttr.MSG);
    w.bytes(new TextEncoder().encode(`${detail}\0`));
    w.attrEnd(a);
  }
  w.end(start);
}

function cString(buf: Uint8Array, start: number, end: number): string {
  let stop = start;
  while (stop < end && buf[stop] !== 0) stop++;
  return Buffer.from(buf.buffer, buf.byteOffset + start, stop - start).toString('utf8');
}
