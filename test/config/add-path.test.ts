import { describe, expect, it } from 'vitest';
import { parse, SPEAKER } from './support.js';

const peerWith = (addPath: string) => `${SPEAKER}peers:
  - name: tor-a
    peer_ip: 198.18.1.2
    remote_as: 65001
    add_path: ${addPath}
`;

describe('add_path.send', () => {
  it.each([
    ['{ send: all }', { receive: false, send: true, sendPaths: 'all' }],
    ['{ send: ecmp }', { receive: false, send: true, sendPaths: 'ecmp' }],
    ['{ send: 3, receive: true }', { receive: true, send: true, sendPaths: 3 }],
    ['{ send: true }', { receive: false, send: true, sendPaths: 'all' }],
    ['{ send: false }', { receive: false, send: false }],
    ['{ receive: true }', { receive: true, send: false }],
  ])('%s resolves to the paths sent', (text, want) => {
    const addPath = parse(peerWith(text)).config.peers[0].addPath;
    expect(addPath).toStrictEqual(want);
  });
});
