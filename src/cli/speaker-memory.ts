import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { libc, M_MMAP_THRESHOLD } from '../components/libc.js';
import { collectReplacedColumns, deferReservedCollections } from '../rib/grow.js';
import { onInitialTables } from '../routing/initial-tables.js';

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
 * they would not): a full collection, four times while a 1M table loads (8-13 ms each).
 * `--expose-gc` set now exposes `gc` only in contexts made from now on, so the speaker's own
 * global scope does not get one.
 *
 * And more of what the collection frees goes back to the system: glibc's malloc gives a new
 * chunk of 128 KiB or more a mapping of its own (unmapped when freed) when its heap has no room,
 * and trims the heap's free top beyond 128 KiB; by default it raises both thresholds to the
 * size of each mapped chunk freed (up to 32 MiB), so once the first columns grew and were
 * freed, the next ones came from the heap, and what they left there stayed resident. Fixing the
 * threshold (mallopt) keeps the defaults: 2-4 MiB less at a full table's peak, 6 MiB with 340k
 * attribute sets. Skipped where libc is not glibc.
 */
export function tuneSpeakerMemory(): void {
  setFlagsFromString(SMALL_YOUNG_GENERATION);
  setFlagsFromString('--expose-gc');
  collect = runInNewContext('gc') as () => void;
  collectReplacedColumns(collect);
  onInitialTables({
    begin: () => {
      setFlagsFromString(GROWING_YOUNG_GENERATION);
      deferReservedCollections(true);
    },
    end: () => {
      setFlagsFromString(SMALL_YOUNG_GENERATION);
      deferReservedCollections(false);
    },
  });
  try {
    libc().mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
  } catch {
    // Not glibc (no libc.so.6, or no mallopt): its allocator keeps its own ways.
  }
}

/** The young generation as the receive path wants it: at its first size. */
const SMALL_YOUNG_GENERATION = '--semi-space-growth-factor=1';
/**
 * While sessions send initial tables, V8's default: the young generation may double up to
 * 16 MiB per semi-space. A full table's send keeps each exported set alive (hundreds of
 * thousands of them), which 1 MiB semi-spaces copied and promoted in about 250 scavenges; V8
 * shrinks it again once the allocation rate falls.
 */
const GROWING_YOUNG_GENERATION = '--semi-space-growth-factor=2';

/** glibc's default, kept fixed. */
const MMAP_THRESHOLD_BYTES = 128 * 1024;
/** How long V8's helper threads get to free the collected buffers before malloc is trimmed. */
const TRIM_AFTER_MS = 250;

let collect: (() => void) | null = null;

/**
 * Gives back what start-up left behind (the warm-up's table, modules' scratch): one full
 * collection now, then malloc's free pages trimmed once V8 has freed the buffers (4 MiB less
 * idle). Without tuneSpeakerMemory first, or where libc is not glibc, it does what it can.
 */
export function releaseFreedMemory(): void {
  collect?.();
  setTimeout(() => {
    try {
      libc().malloc_trim(0);
    } catch {
      // Not glibc: nothing to trim this way.
    }
  }, TRIM_AFTER_MS).unref();
}
