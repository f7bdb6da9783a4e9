/**
 * Whether sessions are sending initial tables, for whoever tunes the process for it (the
 * speaker's memory settings): `begin` when the first session starts sending its initial table,
 * `end` when the last one is done (sent, or the session gone). A full table's send keeps
 * hundreds of thousands of exported sets alive, which a young generation kept small for the
 * receive path copies and promotes in hundreds of scavenges.
 */
export interface InitialTableHooks {
  begin(): void;
  end(): void;
}

let hooks: InitialTableHooks | null = null;
let sending = 0;

/** Installs (or, with null, removes) the hooks. */
export function onInitialTables(h: InitialTableHooks | null): void {
  hooks = h;
}

/** A session starts sending its initial table. */
export function initialTableStarted(): void {
  if (sending++ === 0) hooks?.begin();
}

/** A session that started is done with its initial table (sent, or the session gone). */
export function initialTableEnded(): void {
  if (sending === 0) throw new Error('initial table ended that never started');
  if (--sending === 0) hooks?.end();
}

/** Sessions sending an initial table now. */
export function initialTablesSending(): number {
  return sending;
}
