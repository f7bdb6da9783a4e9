/** The byte stream a connection runs over: what net.Socket and tls.TLSSocket offer. */
export interface Channel {
  write(data: string): boolean;
  destroy(error?: Error): void;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
}
