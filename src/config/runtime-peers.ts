import { isDeepStrictEqual } from 'node:util';
import { isMapping, type Problem, problem } from './problem.js';

/*
 * Peers changed at run time (the control API) over the file's peers. A change is kept as an
 * override by peer name on top of the file's document, and the whole document is validated
 * again, so a peer added through the API meets exactly the rules of one in the file.
 */

/** A peer's settings as the file writes them (snake_case keys), or its removal. */
export type PeerOverride =
  | { readonly kind: 'set'; readonly peer: Readonly<Record<string, unknown>> }
  | { readonly kind: 'removed' };

export type PeerOverrides = ReadonlyMap<string, PeerOverride>;

export type PeerEdit =
  | { readonly op: 'add'; readonly peer: unknown }
  | { readonly op: 'change'; readonly peer: unknown }
  | { readonly op: 'remove'; readonly name: string };

function peerList(doc: unknown): readonly unknown[] {
  if (!isMapping(doc) || !Array.isArray(doc.peers)) return [];
  return doc.peers;
}

export function peerName(peer: unknown): string | undefined {
  return isMapping(peer) && typeof peer.name === 'string' ? peer.name : undefined;
}

/** Where an overridden peer ended up in the merged document, to name its problems `peer.*`. */
export interface MergedDocument {
  readonly doc: unknown;
  readonly at: ReadonlyMap<string, number>;
}

/** The file's document with every override applied: replaced in place, added at the end, or gone. */
export function mergePeerOverrides(doc: unknown, overrides: PeerOverrides): MergedDocument {
  const at = new Map<string, number>();
  if (overrides.size === 0 || !isMapping(doc)) return { doc, at };
  const peers: unknown[] = [];
  const seen = new Set<string>();
  for (const p of peerList(doc)) {
    const name = peerName(p);
    const o = name === undefined ? undefined : overrides.get(name);
    if (name !== undefined) seen.add(name);
    if (o?.kind === 'removed') continue;
    if (o?.kind === 'set' && name !== undefined) at.set(name, peers.length);
    peers.push(o?.kind === 'set' ? o.peer : p);
  }
  for (const [name, o] of overrides) {
    if (seen.has(name) || o.kind !== 'set') continue;
    at.set(name, peers.length);
    peers.push(o.peer);
  }
  return { doc: { ...doc, peers }, at };
}

/** Names of peers whose entry in the file changed (added, edited or removed) between two readings. */
export function peersChangedInFile(before: unknown, after: unknown): Set<string> {
  const index = (doc: unknown) => {
    const m = new Map<string, unknown>();
    for (const p of peerList(doc)) {
      const n = peerName(p);
      if (n !== undefined) m.set(n, p);
    }
    return m;
  };
  const a = index(before);
  const b = index(after);
  const changed = new Set<string>();
  for (const [n, p] of a) if (!isDeepStrictEqual(p, b.get(n))) changed.add(n);
  for (const n of b.keys()) if (!a.has(n)) changed.add(n);
  return changed;
}

/**
 * The overrides after one edit of the running peers (`current` names them), or the problem
 * that refuses it: adding a name that exists, changing or removing one that does not.
 */
export function editOverrides(
  overrides: PeerOverrides,
  edit: PeerEdit,
  current: ReadonlySet<string>,
): { readonly overrides: PeerOverrides } | { readonly problem: Problem } {
  const next = new Map(overrides);
  if (edit.op === 'remove') {
    if (!current.has(edit.name))
      return { problem: problem(['peer'], `no peer named ${edit.name}`, edit.name) };
    next.set(edit.name, { kind: 'removed' });
    return { overrides: next };
  }
  if (!isMapping(edit.peer))
    return { problem: problem(['peer'], 'expected a mapping of peer settings', edit.peer) };
  const name = peerName(edit.peer);
  if (name === undefined)
    return { problem: problem(['peer', 'name'], 'a peer needs a name', edit.peer.name) };
  if (edit.op === 'add' && current.has(name)) {
    return { problem: problem(['peer', 'name'], `a peer named ${name} exists: change it instead`, name) };
  }
  if (edit.op === 'change' && !current.has(name)) {
    return { problem: problem(['peer', 'name'], `no peer named ${name}: add it instead`, name) };
  }
  next.set(name, { kind: 'set', peer: edit.peer });
  return { overrides: next };
}

/** A problem of the merged document as the API caller wrote it: peers[3].remote_as → peer.remote_as. */
export function asEditProblem(p: Problem, index: number | undefined): Problem {
  const [top, i, ...rest] = p.segments;
  if (index === undefined || top !== 'peers' || i !== index) return p;
  return problem(['peer', ...rest], p.message, p.value);
}
