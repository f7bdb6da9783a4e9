import type { Logger } from '../components/index.js';
import type { FibTarget } from '../fib/index.js';
import { KernelTarget } from '../fib/kernel/index.js';
import { OvnNbTarget } from '../fib/ovn-nb/index.js';
import { ZebraTarget } from '../fib/zebra/index.js';
import type { SinkTargetFactory } from './forwarding.js';

/** The real target of each sink, from its configuration. */
export function sinkTargets(log: Logger): SinkTargetFactory {
  return (name, config): FibTarget => {
    switch (name) {
      case 'kernel': {
        const k = config.sinks.kernel!;
        // Our routes are the ones with our protocol in our table; nothing else is touched.
        const target = new KernelTarget(
          { table: k.table, metric: k.metric, protocol: k.protocol, onStop: k.onStop },
          { logger: log },
        );
        target.start();
        return target;
      }
      case 'zebra': {
        const z = config.sinks.zebra!;
        // The target replays its routes itself when zebra comes back (zebra drops a gone client's).
        const target = new ZebraTarget(
          { socket: z.socket, instance: z.instance, distance: z.distance, metric: z.metric },
          { logger: log },
        );
        target.start();
        return target;
      }
      case 'ovnNb': {
        const o = config.sinks.ovnNb!;
        // The configuration refuses sinks.ovn_nb without an ovn section: its nb is where the rows go.
        const ovn = config.ovn!;
        // The target reconciles NB by itself after every reconnect, so `lost` is not needed.
        const target = new OvnNbTarget(
          {
            remotes: ovn.nb.map((r) => r.text),
            ...(ovn.ssl && { tls: ovn.ssl }),
            router: o.router,
            ...(o.outputPort !== undefined && { outputPort: o.outputPort }),
            ...(o.routeTable !== undefined && { routeTable: o.routeTable }),
            mark: { value: config.speaker.name },
          },
          { logger: log },
        );
        target.start();
        return target;
      }
      default:
        throw new Error(`the ${name} sink is not part of this build`);
    }
  };
}
