import type { FibTarget } from '../fib/index.js';
import type { SinkTargetFactory } from './forwarding.js';

/** The real target of each sink, from its configuration. */
export const sinkTarget: SinkTargetFactory = (name): FibTarget => {
  throw new Error(`the ${name} sink is not part of this build`);
};
