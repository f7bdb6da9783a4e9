import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { collectReplacedColumns } from '../rib/grow.js';

/**
 * How the speaker's process keeps its memory close to what it holds. Called before the
 * speaker's modules load.
 *
 * V8's young generation stays at its first size (1 MiB per semi-space). By default each
 * semi-space doubles up to 16 MiB while a burst of UPDATEs allocates, and the young generation
 * then holds about 25 MiB more at a full table's peak (and 8 MiB more idle, from loading the
 * modules) for nothing: the receive path allocates little per prefix, so a small young
 * generation is collected often but cheaply, and a full table arrives as fast.
 * `--max-semi-space-size` would say the same but is read only when the heap is set up; the
 * growth factor is read each time the heap would grow, so it works once the process runs.
 *
 * The RIB's replaced columns go back to the system soon after a table grew (grow.ts says why
 * they would not): a full collection, a few times while a full table loads (10-30 ms each).
 * `--expose-gc` set now exposes `gc` only in contexts made from now on, so the speaker's own
 * global scope does not get one.
 */
export function tuneSpeakerMemory(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--expose-gc');
  collectReplacedColumns(runInNewContext('gc') as () => void);
}
