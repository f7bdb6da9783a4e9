import { OVSDB_PORT } from './constants.js';
import { OvsdbError } from './errors.js';

/*
 * Remotes as OVS and OVN spell them (ovsdb-server(1) "Active database server connection
 * methods"): `unix:FILE`, `tcp:HOST[:PORT]`, `ssl:HOST[:PORT]`, IPv6 hosts in brackets, and
 * a comma-separated list of them for a cluster: `tcp:a:6641,tcp:b:6641,tcp:c:6641`.
 */

export type Remote =
  | { readonly kind: 'unix'; readonly path: string; readonly text: string }
  | { readonly kind: 'tcp' | 'ssl'; readonly host: string; readonly port: number; readonly text: string };

export function parseRemote(text: string): Remote {
  const spec = text.trim();
  const colon = spec.indexOf(':');
  const scheme = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  if (scheme === 'unix') {
    if (rest === '') throw new OvsdbError('bad-remote', `no path in ${JSON.stringify(text)}`);
    return { kind: 'unix', path: rest, text: spec };
  }
  if (scheme !== 'tcp' && scheme !== 'ssl') {
    throw new OvsdbError('bad-remote', `unknown method in ${JSON.stringify(text)} (unix:, tcp: or ssl:)`);
  }
  let host: string;
  let portText: string | undefined;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw new OvsdbError('bad-remote', `unclosed [ in ${JSON.stringify(text)}`);
    host = rest.slice(1, close);
    const tail = rest.slice(close + 1);
    if (tail !== '' && !tail.startsWith(':'))
      throw new OvsdbError('bad-remote', `junk after ] in ${JSON.stringify(text)}`);
    portText = tail === '' ? undefined : tail.slice(1);
  } else {
    const parts = rest.split(':');
    if (parts.length > 2) {
      throw new OvsdbError('bad-remote', `IPv6 hosts need brackets: ${JSON.stringify(text)}`);
    }
    host = parts[0];
    portText = parts[1];
  }
  if (host === '') throw new OvsdbError('bad-remote', `no host in ${JSON.stringify(text)}`);
  const port = portText === undefined || portText === '' ? OVSDB_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new OvsdbError('bad-remote', `bad port in ${JSON.stringify(text)}`);
  }
  return { kind: scheme, host, port, text: spec };
}

/** Parses one remote, a comma-separated connection list, or an array of either. */
export function parseRemotes(remotes: string | readonly string[]): Remote[] {
  const texts = (typeof remotes === 'string' ? [remotes] : remotes)
    .flatMap((r) => r.split(','))
    .map((r) => r.trim())
    .filter((r) => r !== '');
  if (texts.length === 0) throw new OvsdbError('bad-remote', 'no remote given');
  return texts.map(parseRemote);
}
