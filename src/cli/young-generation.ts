import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation at its first size (1 MiB per semi-space) for the speaker's
 * process. By default each semi-space doubles up to 16 MiB while a burst of UPDATEs allocates,
 * and the young generation then holds about 25 MiB more at a full table's peak (and 8 MiB more
 * idle, from loading the modules) for nothing: the receive path allocates little per prefix, so
 * a small young generation is collected often but cheaply, and a full table arrives as fast.
 * `--max-semi-space-size` would say the same but is read only when the heap is set up; the
 * growth factor is read each time the heap would grow, so it works once the process runs.
 * Called before the speaker's modules load.
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
