/** Forwarding planes fed by the Loc-RIB: the route contract every sink shares. */
export {
  type FibChange,
  type FibNextHop,
  type FibRoute,
  type FibTarget,
  fibNextHops,
  toFibChange,
} from './route.js';
